package planner

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Losses of a host; the zero value is a host some live node carries.
const (
	// HostGone is a host no node carries the label of.
	HostGone HostLoss = "Gone"
	// HostFenced is a host every node carrying the label of is NotReady
	// and out of service: two signals, the node lifecycle controller's
	// and a person's or fencing agent's, as upstream's pod garbage
	// collector and attach/detach controller require.
	HostFenced HostLoss = "Fenced"
)

// Permissions; the zero value is not known yet.
const (
	PermissionAllowed Permission = "Allowed"
	PermissionDenied  Permission = "Denied"
)

// StepNodeFailure is the step of the node-failure pass.
const StepNodeFailure = "node failure"

// Action kinds of the node-failure pass. Each is taken only under the
// policy a user chose; upstream has neither.
const (
	// ForceDeletePod deletes Pod with grace period 0 and its UID and
	// resourceVersion as preconditions, once Guard holds live
	// (nodeFailurePolicy.replaceAfterSeconds).
	ForceDeletePod Kind = "ForceDeletePod"
	// DeleteClaim deletes Claim with its UID and resourceVersion as
	// preconditions, once Guard holds live (nodeFailurePolicy.volumes:
	// Recreate).
	DeleteClaim Kind = "DeleteClaim"
)

// Reasons of the node-failure pass: of blockedBy entries, warnings and
// the events of its actions.
const (
	ReasonNodeLost       = "NodeLost"
	ReasonForceDeleted   = "ForceDeletedFromLostNode"
	ReasonClaimRecreated = "ClaimRecreatedFromLostNode"
	ReasonClaimOnLost    = "ClaimOnLostNode"
	// ReasonClaimQuarantine names a claim whose host is lost but not yet
	// for the quarantine: it would be deleted once it is.
	ReasonClaimQuarantine = "ClaimRecreationPending"
	// ReasonClaimNotAllowed names a claim volumes: Recreate would delete
	// but for the controller's permission in the namespace.
	ReasonClaimNotAllowed = "ClaimDeletionNotAllowed"
)

// OutOfServiceTaint is how an administrator fences a node: the
// out-of-service taint of KEP-2268, after which the pod garbage collector
// force-deletes the node's terminating pods and volumes detach, once the
// node is NotReady too.
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

// nodeView is the node-failure policy with the nodes it judges.
type nodeView struct {
	*NodeFailure
	*NodeFacts
}

// nodeFailure is the policy with the nodes it judges; nil when there is
// none, or when nodes were never read (Nodes nil, as against an empty
// map): a node the plan knows nothing of must not pass for a gone one.
func (p *planner) nodeFailure() *nodeView {
	if p.ext == nil || p.ext.NodeFailure == nil || p.in.Observed.Nodes == nil || p.in.Observed.Nodes.Nodes == nil {
		return nil
	}
	return &nodeView{p.ext.NodeFailure, p.in.Observed.Nodes}
}

// nodeFacts are the observed nodes, the zero facts when none were read.
func (p *planner) nodeFacts() *NodeFacts {
	if f := p.in.Observed.Nodes; f != nil {
		return f
	}
	return &NodeFacts{}
}

// lostPod reports a pod whose node is lost and returns its force delete
// when the policy replaces it now.
func (p *planner) lostPod(nf *nodeView, s slot) (Action, bool) {
	node := s.pod.Spec.NodeName
	st, known := nf.Nodes[node]
	if node == "" || (known && st.Ready == corev1.ConditionTrue) {
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
	return Action{Kind: ForceDeletePod, Ordinal: s.ordinal, Pod: s.pod, Guard: &NodeGuard{Node: node, UID: st.UID},
		Reason:      fmt.Sprintf("node failure: %s has not answered (Ready Unknown) for %s (replaceAfterSeconds %d)", node, p.in.Now.Sub(st.Since).Round(time.Second), int64(nf.ReplaceAfter/time.Second)),
		EventReason: ReasonForceDeleted,
		EventMessage: fmt.Sprintf("Force-deleted Pod %s: its node %s has not answered (Ready Unknown) since %s (nodeFailurePolicy.replaceAfterSeconds %d); if the node still runs it, two containers with this identity may run until the node stops it",
			s.pod.Name, node, st.Since.UTC().Format(time.RFC3339), int64(nf.ReplaceAfter/time.Second)),
		FailEvent: EventFailedDelete}, true
}

// lostPodMessage says where the pod is stuck and what the policy does
// about it, and whether the policy force-deletes it now: only a pod of a
// node that stopped answering (Ready Unknown, neither fenced nor gone) for
// replaceAfterSeconds, counted from a known time.
func (p *planner) lostPodMessage(nf *nodeView, s slot, node string, st NodeState, known bool) (string, bool) {
	state := "is on"
	if isTerminating(s.pod) {
		state = "is stuck Terminating on"
	}
	switch {
	case !known:
		return fmt.Sprintf("%s %s node %s, which is gone: the pod garbage collector deletes it, then it is recreated%s", s.pod.Name, state, node, p.volumesWord(nf, true)), false
	case st.OutOfService:
		return fmt.Sprintf("%s %s node %s, which is NotReady and fenced (out of service): the pod garbage collector deletes it, then it is recreated%s", s.pod.Name, state, node, p.volumesWord(nf, true)), false
	case st.Ready == corev1.ConditionFalse:
		return fmt.Sprintf("%s %s node %s, whose kubelet reports it NotReady (Ready False) since %s: a kubelet that answers stops the pod itself once it is deleted (taint eviction deletes it after its toleration of %s), so replaceAfterSeconds does not force-delete it%s",
			s.pod.Name, state, node, st.Since.UTC().Format(time.RFC3339), corev1.TaintNodeNotReady, p.volumesWord(nf, false)), false
	case st.Ready == "":
		return fmt.Sprintf("%s %s node %s, which has no Ready condition (its kubelet never reported): it stays until the node lifecycle controller judges the node (Ready Unknown after its startup grace period), and replaceAfterSeconds counts from then%s",
			s.pod.Name, state, node, p.volumesWord(nf, false)), false
	case st.Since.IsZero():
		return fmt.Sprintf("%s %s node %s, which has not answered (Ready Unknown) since a time not known: replaceAfterSeconds counts from when the controller first sees it so%s", s.pod.Name, state, node, p.volumesWord(nf, false)), false
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
func (p *planner) volumesWord(nf *nodeView, fenced bool) string {
	if len(p.set.Spec.VolumeClaimTemplates) == 0 {
		return ""
	}
	switch {
	case nf.Volumes == v1alpha1.RecreateNodeFailureVolumes && fenced:
		return "; volumes: Recreate gives up its claims on volumes of that node, once it has been lost for the quarantine, and recreates them empty"
	case nf.Volumes == v1alpha1.RecreateNodeFailureVolumes:
		return "; once the node is NotReady and fenced, or deleted, for the quarantine, volumes: Recreate gives up its claims on volumes of that node and recreates them empty"
	}
	return "; volumes: Keep keeps its claims, so a claim on a volume of that node holds the pod to it"
}

// lostPodHint is what the user can do about a pod on a lost node.
func (p *planner) lostPodHint(nf *nodeView, node string, st NodeState, known bool) string {
	if !known || st.OutOfService || st.Ready == corev1.ConditionFalse {
		return ""
	}
	hint := fmt.Sprintf("Once node %s is really shut down, fence it: %s", node, FenceCommand(node))
	if !nf.Replace {
		hint += "; or set spec.nodeFailurePolicy.replaceAfterSeconds to force-delete pods of nodes that stop answering (docs/node-failure.md)"
	}
	return hint
}
