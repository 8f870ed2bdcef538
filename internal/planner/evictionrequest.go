package planner

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// An eviction request (lifecycle.k8s.io, KEP-4563) asks the responders a
// pod names in spec.evictionResponders, one at a time by priority, to
// evict it; the last one, the imperative evictor, calls the Eviction API.
// An extended set's controller names itself in its pods, and a request
// whose active responder it is becomes, for the set, one more reason for a
// pod to leave its node: the node-drain pass moves it in the set's own
// turn and budget, after a role's switchover and the preDelete hook, as it
// moves a pod off a cordoned node. The plan answers every request
// (EvictionResponse): moving, with what the move waits for; moved, once
// the pod is gone or going; or declined, when the set leaves the pod to
// the next responder (the API's eviction, under the pod's budgets).

// Outcomes of an eviction request.
const (
	// ResponseMoving: the set is moving the pod; the responder reports
	// progress and heartbeats.
	ResponseMoving ResponseOutcome = "Moving"
	// ResponseMoved: the pod is terminating or gone; the responder
	// completes.
	ResponseMoved ResponseOutcome = "Moved"
	// ResponseDeclined: the set does not move the pod and leaves it to
	// the next responder; the responder completes, saying why.
	ResponseDeclined ResponseOutcome = "Declined"
)

// requestedEviction says why the pod in s leaves its node because of an
// eviction request ("eviction requested by ordinal.dev/node-drain"), or
// "": a request for this pod (by UID), on a Ready node, under
// nodeDrainPolicy Move.
func (p *planner) requestedEviction(s slot) string {
	r := p.requestFor(s)
	if r == nil || !p.ext.MoveOffDrainedNodes || s.placeholder || !isCreated(s.pod) || isFinished(s.pod) {
		return ""
	}
	if nf := p.nodeFailure(); nf == nil || nf.Nodes[s.pod.Spec.NodeName].Ready != corev1.ConditionTrue {
		return ""
	}
	return requestedBy(r)
}

// requestFor is the eviction request for the pod in s, or nil.
func (p *planner) requestFor(s slot) *EvictionRequest {
	for i, r := range p.in.Observed.EvictionRequests {
		if r.Pod == s.pod.Name && r.UID == s.pod.UID {
			return &p.in.Observed.EvictionRequests[i]
		}
	}
	return nil
}

// requestedBy is how a plan names a request: "eviction requested by X".
func requestedBy(r *EvictionRequest) string {
	if len(r.Requesters) == 0 {
		return "eviction requested"
	}
	return "eviction requested by " + strings.Join(r.Requesters, ", ")
}

// leaveIntent says why the pod in s moves off its node: the node is
// drained (drainedNode), or an eviction request asks for it; "" when
// neither.
func (p *planner) leaveIntent(s slot) string {
	if why := p.drainedNode(s); why != "" {
		return why
	}
	return p.requestedEviction(s)
}

// evictionResponses answers each eviction request of an extended set,
// once the passes have run (Compute).
func (p *planner) evictionResponses() []EvictionResponse {
	if p.ext == nil || len(p.in.Observed.EvictionRequests) == 0 {
		return nil
	}
	out := make([]EvictionResponse, 0, len(p.in.Observed.EvictionRequests))
	for i := range p.in.Observed.EvictionRequests {
		r := &p.in.Observed.EvictionRequests[i]
		outcome, msg := p.respond(r)
		out = append(out, EvictionResponse{Pod: r.Pod, UID: r.UID, Outcome: outcome, Message: msg})
	}
	return out
}

// respond is the set's answer to r.
func (p *planner) respond(r *EvictionRequest) (ResponseOutcome, string) {
	s, ok := p.slotOf(r.Pod)
	switch {
	case !ok || s.placeholder || s.pod.UID != r.UID:
		return ResponseMoved, fmt.Sprintf("%s (uid %s) is gone", r.Pod, r.UID)
	case isTerminating(s.pod):
		return ResponseMoved, fmt.Sprintf("%s is terminating: the set creates it again where the scheduler puts it", r.Pod)
	case isFinished(s.pod):
		return ResponseMoved, fmt.Sprintf("%s has finished (%s)", r.Pod, s.pod.Status.Phase)
	case p.set.DeletionTimestamp != nil:
		return ResponseMoving, fmt.Sprintf("%s goes with its set, which is being deleted", r.Pod)
	}
	if why := p.declines(s); why != "" {
		return ResponseDeclined, why + "; it is left to the next responder"
	}
	return ResponseMoving, p.moveProgress(s, r)
}

// declines says why the set does not move the pod in s for a request,
// or "".
func (p *planner) declines(s slot) string {
	name, node := s.pod.Name, s.pod.Spec.NodeName
	nf := p.nodeFailure()
	switch {
	case !p.ext.MoveOffDrainedNodes:
		return fmt.Sprintf("nodeDrainPolicy Ignore: the set does not move %s", name)
	case p.ext.Paused:
		return fmt.Sprintf("the set's rollout is paused: it does not move %s", name)
	case nf == nil:
		return fmt.Sprintf("the controller cannot read nodes: it does not know whether %s's node is Ready", name)
	case nf.Nodes[node].Ready != corev1.ConditionTrue:
		return fmt.Sprintf("%s's node %s is not Ready: the node-failure policy speaks for it", name, node)
	}
	if claim := p.pinnedClaim(s); claim != "" {
		return fmt.Sprintf("%s's claim %s is on a local volume of node %s: it cannot start on another node", name, claim, node)
	}
	return ""
}

// moveProgress says how far the move of the pod in s has come: what it
// waits for, or that it is under way.
func (p *planner) moveProgress(s slot, r *EvictionRequest) string {
	i := slices.IndexFunc(p.plan.Waits, func(w Wait) bool { return w.Pod == s.pod.Name })
	if i >= 0 {
		return p.plan.Waits[i].Policy
	}
	why := p.leaveIntent(s)
	if why == "" {
		why = requestedBy(r)
	}
	moving := MovingOffNode(s.pod.Name, s.pod.Spec.NodeName, why)
	if p.deleted[s.ordinal] {
		return moving + ": deleting it so that it starts on another node"
	}
	if len(p.plan.Waits) > 0 {
		return moving + ": waits while " + p.plan.Waits[0].Pod + " holds the set (" + p.plan.Waits[0].Policy + ")"
	}
	return moving
}

// slotOf is the slot of the set's pod called name, in its ordinals or
// condemned.
func (p *planner) slotOf(name string) (slot, bool) {
	for _, list := range [][]slot{p.replicas, p.condemned} {
		for _, s := range list {
			if s.pod.Name == name {
				return s, true
			}
		}
	}
	return slot{}, false
}
