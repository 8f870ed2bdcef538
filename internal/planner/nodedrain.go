package planner

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// StepNodeDrain is the step that moves an extended set's pods off the
// nodes being drained (nodeDrainPolicy Move).
const StepNodeDrain = "node drain"

// nodeDrainPass moves the pods of an extended set off drained nodes, and
// those an eviction request asks to go (evictionrequest.go), the way the
// rolling update removes a pod: highest ordinal first and the holders of
// an exclusive role last (drainOrder), as far as a round of moves admits
// them (admitMove: maxUnavailable, counting the pods the rollout, a
// requested delete or a lost node has down, and what this pass takes is
// what the rolling update no longer gets; a topology's room per domain;
// each role's quorum), after the switchover of an exclusive role and the
// preDelete hook (hooked). The pod is then deleted
// (evicted under respectDisruptionBudgets), and the replica pass of a
// later sync creates it again, where the scheduler puts it: not on the
// cordoned node. Only pods on a Ready node move: the node-failure pass
// speaks for the others. A pod with a claim on a local volume stays and
// is named: it could start nowhere else. A paused set moves nothing: the
// drain's evictions meet its budgets as they would.
func (p *planner) nodeDrainPass() {
	if p.ext == nil || !p.ext.MoveOffDrainedNodes || p.ext.Paused || p.nodeFailure() == nil {
		return
	}
	r, ok := p.moveRound()
	if !ok {
		return
	}
	var actions []Action
	for _, s := range p.drainOrder() {
		why := p.leaveIntent(s)
		if why == "" || isTerminating(s.pod) || p.deleted[s.ordinal] {
			continue
		}
		moving := MovingOffNode(s.pod.Name, s.pod.Spec.NodeName, why)
		if claim := p.pinnedClaim(s); claim != "" {
			msg := fmt.Sprintf("%s is on node %s (%s), but its claim %s is on a local volume there: it cannot start on another node, so it stays for the drain to evict",
				s.pod.Name, s.pod.Spec.NodeName, why, claim)
			p.drainBlock(s, msg)
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, msg, ""))
			continue
		}
		p.drainBlock(s, moving)
		if !p.admitMove(r, s, moving+" waits:") {
			continue
		}
		actions = append(actions, p.hooked(s, needDelete, func() []Action {
			p.deleted[s.ordinal] = true
			return []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventMovingOffNode, FailEvent: EventFailedDelete,
				EventMessage: moving, Reason: moving + ": delete it so that it starts on another node"}}
		})...)
	}
	p.addStep(StepNodeDrain, actions)
}

// ReasonNodeDrain lists in status.blockedBy a pod the set moves off a
// drained node, until it is gone from there.
const ReasonNodeDrain = "NodeDrain"

// drainBlock lists the pod in s in status.blockedBy as moving off its
// node, since it entered its state (stable from sync to sync).
func (p *planner) drainBlock(s slot, msg string) {
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: s.pod.Name, Ordinal: s.ordinal,
		Revision: podRevision(s.pod), Reason: ReasonNodeDrain, Message: msg, Since: sinceOf(s.pod)}})
}

// drainOrder is the order in which the pass considers the set's pods:
// highest ordinal first, the holders of an exclusive role last, so that
// a leader hands over once, to a member that has already moved.
func (p *planner) drainOrder() []slot {
	out := slices.Clone(p.replicas)
	slices.Reverse(out)
	v := p.rolesOf()
	if v == nil {
		return out
	}
	slices.SortStableFunc(out, func(a, b slot) int {
		return cmpBool(exclusiveHolder(v, a), exclusiveHolder(v, b))
	})
	return out
}

func exclusiveHolder(v *roleView, s slot) bool {
	r, ok := v.roleOf(s.pod)
	return ok && r.Exclusive
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// EventMovingOffNode is the event of a pod deleted to move it off a
// drained node.
const EventMovingOffNode = "MovingOffNode"

// MovingOffNode is how a plan and the set's status say that pod is being
// moved off node, drained for why: "moving db-1 off node-3 (cordoned)".
func MovingOffNode(pod, node, why string) string {
	return fmt.Sprintf("moving %s off %s (%s)", pod, node, why)
}

// drainedNode says why the pod in s is on a drained node it moves off
// (the node's NodeState.Drain), or "": under nodeDrainPolicy Move, a
// created pod on a Ready node being drained.
func (p *planner) drainedNode(s slot) string {
	nf := p.nodeFailure()
	if nf == nil || !p.ext.MoveOffDrainedNodes || s.placeholder || !isCreated(s.pod) || isFinished(s.pod) {
		return ""
	}
	st, ok := nf.Nodes[s.pod.Spec.NodeName]
	if !ok || st.Ready != corev1.ConditionTrue {
		return ""
	}
	return st.Drain
}

// pinnedClaim is a claim of the pod in s bound to a local volume (one
// host), or "".
func (p *planner) pinnedClaim(s slot) string {
	for _, t := range p.set.Spec.VolumeClaimTemplates {
		name := t.Name + "-" + s.pod.Name
		if p.nodeFacts().ClaimHosts[name] != "" {
			return name
		}
	}
	return ""
}
