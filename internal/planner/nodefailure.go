package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// NodeFailure is what an extended set's plan knows of the nodes its pods
// run on and its claims' volumes are pinned to, and its node-failure
// policy (spec.nodeFailurePolicy). A node that a pod or a claim names and
// that is absent from Nodes is gone (its Node object deleted).
type NodeFailure struct {
	// Volumes is the policy's volumes; empty means Keep.
	Volumes v1alpha1.NodeFailureVolumes
	// Replace is true when ReplaceAfter is set: a pod whose node has not
	// been Ready for ReplaceAfter is force-deleted.
	Replace      bool
	ReplaceAfter time.Duration
	// Nodes are the nodes the set's pods and its claims' volumes name;
	// one absent from a non-nil map is gone. Nil (never read) turns the
	// node-failure pass off.
	Nodes map[string]NodeState
	// ClaimNodes maps a claim's name to the one node its bound volume can
	// be used on (a local volume), for claims that have one.
	ClaimNodes map[string]string
}

// NodeState is one node as a plan judges it.
type NodeState struct {
	// Ready is the node's Ready condition being True.
	Ready bool
	// Since is when the Ready condition last changed.
	Since time.Time
	// OutOfService is the node carrying the node.kubernetes.io/out-of-service
	// taint: fenced, known to be shut down.
	OutOfService bool
}

// StepNodeFailure is the step of the node-failure pass.
const StepNodeFailure = "node failure"

// Action kinds of the node-failure pass. Each is taken only under the
// policy a user chose; upstream has neither.
const (
	// ForceDeletePod deletes Pod with grace period 0 and its UID as
	// precondition (nodeFailurePolicy.replaceAfterSeconds).
	ForceDeletePod Kind = "ForceDeletePod"
	// DeleteClaim deletes Claim with its UID as precondition
	// (nodeFailurePolicy.volumes: Recreate).
	DeleteClaim Kind = "DeleteClaim"
)

// Reasons of the node-failure pass: of blockedBy entries, warnings and
// the events of its actions.
const (
	ReasonNodeLost       = "NodeLost"
	ReasonForceDeleted   = "ForceDeletedFromLostNode"
	ReasonClaimRecreated = "ClaimRecreatedFromLostNode"
	ReasonClaimOnLost    = "ClaimOnLostNode"
)

// OutOfServiceTaint is how an administrator fences a node: the
// out-of-service taint of KEP-2268, after which the pod garbage collector
// force-deletes the node's terminating pods and volumes detach.
const OutOfServiceTaint = corev1.TaintNodeOutOfService + "=nodeshutdown:NoExecute"

// FenceCommand is the command that fences node.
func FenceCommand(node string) string {
	return "kubectl taint nodes " + node + " " + OutOfServiceTaint
}

// nodeFailurePass names the set's pods on lost nodes (status.blockedBy, a
// wait, a warning), force-deletes those the policy replaces, and deletes
// the claims the policy recreates. It reports whether the later passes may
// run: not when it deletes claims, whose pods are created again only once
// those claims are gone. The pass never races the pod garbage collector:
// a pod on a fenced or deleted node is the collector's to remove, and a
// claim is deleted only once its ordinal's pod is gone or was never
// scheduled.
func (p *planner) nodeFailurePass() bool {
	nf := p.nodeFailure()
	if nf == nil {
		return true
	}
	var actions []Action
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		if a, ok := p.lostPod(nf, s); ok {
			actions = append(actions, a)
		}
	}
	claims := p.lostClaims(nf)
	actions = append(actions, claims...)
	if len(actions) > 0 {
		p.plan.Steps = append(p.plan.Steps, Step{Name: StepNodeFailure, Actions: actions})
	}
	return len(claims) == 0
}

// nodeFailure is the policy with the nodes it judges; nil when there is
// none, or when nodes were never read (Nodes nil, as against an empty
// map): a node the plan knows nothing of must not pass for a gone one.
func (p *planner) nodeFailure() *NodeFailure {
	if p.ext == nil || p.ext.NodeFailure == nil || p.ext.NodeFailure.Nodes == nil {
		return nil
	}
	return p.ext.NodeFailure
}

// lostPod reports a pod whose node is lost and returns its force delete
// when the policy replaces it now.
func (p *planner) lostPod(nf *NodeFailure, s slot) (Action, bool) {
	node := s.pod.Spec.NodeName
	st, known := nf.Nodes[node]
	if node == "" || (known && st.Ready) {
		return Action{}, false
	}
	msg, replace := p.lostPodMessage(nf, s, node, st, known)
	since := st.Since
	if !known || since.IsZero() {
		since = sinceOf(s.pod)
	}
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: s.pod.Name, Ordinal: s.ordinal,
		Revision: podRevision(s.pod), Reason: ReasonNodeLost, Message: msg, Since: since}})
	p.warn(ReasonNodeLost, "Pod/"+s.pod.Name, msg)
	w := p.waitOn(s, msg, p.lostPodHint(nf, node, st, known))
	p.plan.Waits = append(p.plan.Waits, *w)
	if !replace {
		return Action{}, false
	}
	return Action{Kind: ForceDeletePod, Ordinal: s.ordinal, Pod: s.pod,
		Reason:      fmt.Sprintf("node failure: %s has not been Ready for %s (replaceAfterSeconds %d)", node, p.in.Now.Sub(st.Since).Round(time.Second), int64(nf.ReplaceAfter/time.Second)),
		EventReason: ReasonForceDeleted,
		EventMessage: fmt.Sprintf("Force-deleted Pod %s: its node %s has not been Ready since %s (nodeFailurePolicy.replaceAfterSeconds %d); if the node still runs it, two containers with this identity may run until the node stops it",
			s.pod.Name, node, st.Since.UTC().Format(time.RFC3339), int64(nf.ReplaceAfter/time.Second)),
		FailEvent: EventFailedDelete}, true
}

// lostPodMessage says where the pod is stuck and what the policy does
// about it, and whether the policy force-deletes it now.
func (p *planner) lostPodMessage(nf *NodeFailure, s slot, node string, st NodeState, known bool) (string, bool) {
	state := "is on"
	if isTerminating(s.pod) {
		state = "is stuck Terminating on"
	}
	switch {
	case !known:
		return fmt.Sprintf("%s %s node %s, which is gone: the pod garbage collector deletes it, then it is recreated%s", s.pod.Name, state, node, p.volumesWord(nf, true)), false
	case st.OutOfService:
		return fmt.Sprintf("%s %s node %s, which is fenced (out of service): the pod garbage collector deletes it, then it is recreated%s", s.pod.Name, state, node, p.volumesWord(nf, true)), false
	}
	lost := fmt.Sprintf("%s %s node %s, which has not been Ready since %s", s.pod.Name, state, node, st.Since.UTC().Format(time.RFC3339))
	if !nf.Replace {
		return lost + fmt.Sprintf(": it stays until the node returns or is fenced (%s)%s", FenceCommand(node), p.volumesWord(nf, false)), false
	}
	at := st.Since.Add(nf.ReplaceAfter)
	if left := at.Sub(p.in.Now); left > 0 {
		p.requeueBy(left)
		return lost + fmt.Sprintf(": replaceAfterSeconds force-deletes it at %s, unless the node is fenced first (%s)%s", at.UTC().Format(time.RFC3339), FenceCommand(node), p.volumesWord(nf, false)), false
	}
	return lost + ": replaceAfterSeconds force-deletes it", true
}

// volumesWord says what becomes of the pod's local volumes once it is
// recreated; fenced is true when its node is already gone or fenced.
func (p *planner) volumesWord(nf *NodeFailure, fenced bool) string {
	if len(p.set.Spec.VolumeClaimTemplates) == 0 {
		return ""
	}
	switch {
	case nf.Volumes == v1alpha1.RecreateNodeFailureVolumes && fenced:
		return "; volumes: Recreate gives up its claims on volumes of that node and recreates them empty"
	case nf.Volumes == v1alpha1.RecreateNodeFailureVolumes:
		return "; once the node is fenced or deleted, volumes: Recreate gives up its claims on volumes of that node and recreates them empty"
	}
	return "; volumes: Keep keeps its claims, so a claim on a volume of that node holds the pod to it"
}

// lostPodHint is what the user can do about a pod on a lost node.
func (p *planner) lostPodHint(nf *NodeFailure, node string, st NodeState, known bool) string {
	if !known || st.OutOfService {
		return ""
	}
	hint := fmt.Sprintf("Once node %s is really shut down, fence it: %s", node, FenceCommand(node))
	if !nf.Replace {
		hint += "; or set spec.nodeFailurePolicy.replaceAfterSeconds to force-delete pods of nodes that stay NotReady (docs/node-failure.md)"
	}
	return hint
}

// lostClaims are the deletes of claims pinned to a gone or fenced node,
// under volumes: Recreate, of ordinals whose pod is gone or was never
// scheduled. A pod that was never scheduled (its claim holds it to the
// lost node) stays: an unscheduled pod does not hold a claim being
// deleted, and the replica pass creates a Pending pod's missing claims,
// as upstream does, so it is scheduled with the new one. Claims pinned to
// a node that is only NotReady are kept.
func (p *planner) lostClaims(nf *NodeFailure) []Action {
	if len(nf.ClaimNodes) == 0 || len(p.set.Spec.VolumeClaimTemplates) == 0 {
		return nil
	}
	pods := map[int32]slot{}
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		pods[s.ordinal] = s
	}
	byOrdinal := map[int32][]*corev1.PersistentVolumeClaim{}
	var ordinals []int32
	for name, node := range nf.ClaimNodes {
		ord, ok := p.claimOrdinal(name)
		claim := p.in.Claims[name]
		if !ok || claim == nil || !p.nodeGoneOrFenced(nf, node) {
			continue
		}
		if claim.DeletionTimestamp != nil {
			p.recreating(nf, ord, claim)
			continue
		}
		s, hasPod := pods[ord]
		if hasPod && (s.pod.Spec.NodeName != "" || isTerminating(s.pod)) {
			continue
		}
		if nf.Volumes != v1alpha1.RecreateNodeFailureVolumes {
			p.warn(ReasonClaimOnLost, "PersistentVolumeClaim/"+name, fmt.Sprintf("its volume is on node %s, which is gone or fenced: %s cannot start anywhere else while it keeps this claim (volumes: Keep). Delete the claim to give its data up, or set spec.nodeFailurePolicy.volumes: Recreate", node, PodName(p.set.Name, ord)))
			continue
		}
		if len(byOrdinal[ord]) == 0 {
			ordinals = append(ordinals, ord)
		}
		byOrdinal[ord] = append(byOrdinal[ord], claim)
	}
	slices.Sort(ordinals)
	var out []Action
	for _, ord := range ordinals {
		claims := byOrdinal[ord]
		slices.SortFunc(claims, func(a, b *corev1.PersistentVolumeClaim) int { return strings.Compare(a.Name, b.Name) })
		for _, c := range claims {
			out = append(out, p.deleteClaim(nf, ord, c))
		}
	}
	return out
}

func (p *planner) deleteClaim(nf *NodeFailure, ord int32, c *corev1.PersistentVolumeClaim) Action {
	msg, how := p.givenUp(nf, ord, c)
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: PodName(p.set.Name, ord), Ordinal: ord,
		Reason: ReasonClaimRecreated, Message: msg, Since: p.in.Now}})
	return Action{Kind: DeleteClaim, Ordinal: ord, Claim: c, Reason: "node failure: volume on a " + how + " node",
		EventReason: ReasonClaimRecreated, EventMessage: "Deleted claim " + msg, FailEvent: EventFailedDelete}
}

// recreating lists, while a claim the policy deleted is going away, what
// was given up.
func (p *planner) recreating(nf *NodeFailure, ord int32, c *corev1.PersistentVolumeClaim) {
	if nf.Volumes != v1alpha1.RecreateNodeFailureVolumes {
		return
	}
	msg, _ := p.givenUp(nf, ord, c)
	since := p.in.Now
	if c.DeletionTimestamp != nil {
		since = c.DeletionTimestamp.Time
	}
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: PodName(p.set.Name, ord), Ordinal: ord,
		Reason: ReasonClaimRecreated, Message: "claim " + msg, Since: since}})
}

// givenUp says which claim of which pod is recreated, and why, and what
// data is given up; how is "gone" or "fenced".
func (p *planner) givenUp(nf *NodeFailure, ord int32, c *corev1.PersistentVolumeClaim) (msg, how string) {
	node, pod := nf.ClaimNodes[c.Name], PodName(p.set.Name, ord)
	how = "gone"
	if st, ok := nf.Nodes[node]; ok && st.OutOfService {
		how = "fenced"
	}
	return fmt.Sprintf("%s of Pod %s: its volume %s is on node %s, which is %s; the data on it is given up (nodeFailurePolicy.volumes: Recreate), and the claim is created again, empty, so %s can start on another node",
		c.Name, pod, c.Spec.VolumeName, node, how, pod), how
}

// nodeGoneOrFenced reports whether node is deleted or out of service.
func (p *planner) nodeGoneOrFenced(nf *NodeFailure, node string) bool {
	st, ok := nf.Nodes[node]
	return !ok || st.OutOfService
}

// claimOrdinal is the in-range ordinal of the set's claim called name.
func (p *planner) claimOrdinal(name string) (int32, bool) {
	for _, t := range p.set.Spec.VolumeClaimTemplates {
		rest, ok := strings.CutPrefix(name, t.Name+"-")
		if !ok {
			continue
		}
		if ord, ok := ParseOrdinal(p.set.Name, rest); ok && PodName(p.set.Name, ord) == rest && p.inRange(ord) {
			return ord, true
		}
	}
	return 0, false
}
