package planner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// ClaimDeleterRole is the ClusterRole config/ installs for claim deletion;
// a RoleBinding of it in a namespace lets the controller apply volumes:
// Recreate there (the chart names it <release>-claim-deleter).
const ClaimDeleterRole = "ordinal-claim-deleter"

// PermissionRecheck is how long an answer about the controller's
// permission to delete claims in a namespace holds: a plan that waits for
// it is made again after that long, so a namespace that opts in (or out)
// takes effect within it.
const PermissionRecheck = time.Minute

// lostClaims are the deletes of claims pinned to a lost host, under
// volumes: Recreate, of ordinals whose pod is gone or was never scheduled,
// once the host has been lost for the quarantine and where the controller
// may delete claims. A pod that was never scheduled (its claim holds it
// to the lost host) stays: an unscheduled pod does not hold a claim being
// deleted, and the replica pass creates a Pending pod's missing claims,
// as upstream does, so it is scheduled with the new one. Claims pinned to
// a host some node carries that is Ready, or only NotReady, or only
// fenced, are kept.
func (p *planner) lostClaims(nf *nodeView) []Action {
	if len(nf.ClaimHosts) == 0 || len(p.set.Spec.VolumeClaimTemplates) == 0 {
		return nil
	}
	pods := map[int32]slot{}
	for _, s := range slices.Concat(p.replicas, p.condemned) {
		pods[s.ordinal] = s
	}
	byOrdinal := map[int32][]*corev1.PersistentVolumeClaim{}
	var ordinals []int32
	for name, host := range nf.ClaimHosts {
		ord, ok := p.claimOrdinal(name)
		claim := p.in.Claims[name]
		if !ok || claim == nil || nf.Hosts[host].Loss == "" {
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
			p.warn(ReasonClaimOnLost, "PersistentVolumeClaim/"+name, fmt.Sprintf("its volume is on host %s, %s: %s cannot start anywhere else while it keeps this claim (volumes: Keep). Delete the claim to give its data up, or set spec.nodeFailurePolicy.volumes: Recreate",
				host, hostWords(nf.Hosts[host]), PodName(p.set.Name, ord)))
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
			if a, ok := p.deleteClaim(nf, ord, c); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

// deleteClaim is the delete of claim c of ordinal ord whose host is lost,
// once its quarantine is over and the controller may; until then the
// claim is listed in blockedBy with what would happen and why.
func (p *planner) deleteClaim(nf *nodeView, ord int32, c *corev1.PersistentVolumeClaim) (Action, bool) {
	host := nf.ClaimHosts[c.Name]
	hs := nf.Hosts[host]
	why := fmt.Sprintf("its volume %s is pinned to host %s, %s", c.Spec.VolumeName, host, hostWords(hs))
	pod := PodName(p.set.Name, ord)
	block := func(reason, msg string, since time.Time) {
		p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: pod, Ordinal: ord, Reason: reason, Message: msg, Since: since}})
	}
	if done, msg := p.quarantineOver(nf, hs, c.Name, host, why, pod); !done {
		block(ReasonClaimQuarantine, msg, hs.Since)
		return Action{}, false
	}
	if nf.ClaimDeletion != PermissionAllowed {
		p.requeueBy(PermissionRecheck)
		block(ReasonClaimNotAllowed, fmt.Sprintf("would delete claim %s because %s, but %s: volumes: Recreate is not applied and no claim is deleted", c.Name, why, p.mayNotWords()), hs.Since)
		return Action{}, false
	}
	msg := p.givenUp(nf, ord, c)
	block(ReasonClaimRecreated, msg, p.in.Now)
	return Action{Kind: DeleteClaim, Ordinal: ord, Claim: c, Guard: &NodeGuard{Host: host},
		Reason:      fmt.Sprintf("node failure: delete claim %s because %s, for longer than %s", c.Name, why, quarantineWords(nf)),
		EventReason: ReasonClaimRecreated, EventMessage: "Deleted claim " + msg, FailEvent: EventFailedDelete}, true
}

// quarantineOver reports whether host has been lost for the quarantine,
// and if not, what the plan would do and when, in words; a plan that does
// not know the quarantine counts on the controller's word.
func (p *planner) quarantineOver(nf *nodeView, hs HostState, claim, host, why, pod string) (bool, string) {
	given := fmt.Sprintf("the data on it would be given up (nodeFailurePolicy.volumes: Recreate) so %s can start on another node", pod)
	if nf.Quarantine == 0 {
		if hs.QuarantineOver {
			return true, ""
		}
		return false, fmt.Sprintf("would delete claim %s because %s, once it has been lost for the controller's quarantine (--node-loss-quarantine), unless a live node with kubernetes.io/hostname=%s returns before; %s",
			claim, why, host, given)
	}
	at := hs.Since.Add(nf.Quarantine)
	if !p.in.Now.Before(at) {
		return true, ""
	}
	p.requeueBy(at.Sub(p.in.Now))
	return false, fmt.Sprintf("would delete claim %s at %s because %s, unless a live node with kubernetes.io/hostname=%s returns before (quarantine %s); %s",
		claim, at.UTC().Format(time.RFC3339), why, host, nf.Quarantine, given)
}

// quarantineWords names the quarantine.
func quarantineWords(nf *nodeView) string {
	if nf.Quarantine == 0 {
		return "the controller's quarantine (--node-loss-quarantine)"
	}
	return fmt.Sprintf("the quarantine (%s)", nf.Quarantine)
}

// hostWords says how a host is lost, with its nodes.
func hostWords(hs HostState) string {
	since := hs.Since.UTC().Format(time.RFC3339)
	switch {
	case hs.Loss == HostGone:
		return "which no node has carried since " + since
	case len(hs.Nodes) == 1:
		return fmt.Sprintf("whose node %s has been NotReady and fenced (out of service) since %s", hs.Nodes[0], since)
	}
	return fmt.Sprintf("whose nodes %s have been NotReady and fenced (out of service) since %s", strings.Join(hs.Nodes, ", "), since)
}

// mayNotWords says why the controller does not delete claims in the set's
// namespace, and how to let it.
func (p *planner) mayNotWords() string {
	ns := p.set.Namespace
	if p.nodeFacts().ClaimDeletion == PermissionDenied {
		return fmt.Sprintf("the controller may not delete PersistentVolumeClaims in namespace %s; to let it, bind the ClusterRole %s to its ServiceAccount with a RoleBinding in %s (docs/node-failure.md)", ns, ClaimDeleterRole, ns)
	}
	return fmt.Sprintf("the controller has not learnt yet whether it may delete PersistentVolumeClaims in namespace %s", ns)
}

// recreating lists, while a claim the policy deleted is going away, what
// was given up.
func (p *planner) recreating(nf *nodeView, ord int32, c *corev1.PersistentVolumeClaim) {
	if nf.Volumes != v1alpha1.RecreateNodeFailureVolumes {
		return
	}
	since := p.in.Now
	if c.DeletionTimestamp != nil {
		since = c.DeletionTimestamp.Time
	}
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: PodName(p.set.Name, ord), Ordinal: ord,
		Reason: ReasonClaimRecreated, Message: "claim " + p.givenUp(nf, ord, c), Since: since}})
}

// givenUp says which claim of which pod is recreated, and why, and what
// data is given up.
func (p *planner) givenUp(nf *nodeView, ord int32, c *corev1.PersistentVolumeClaim) string {
	host, pod := nf.ClaimHosts[c.Name], PodName(p.set.Name, ord)
	return fmt.Sprintf("%s of Pod %s: its volume %s is on host %s, %s; the data on it is given up (nodeFailurePolicy.volumes: Recreate), and the claim is created again, empty, so %s can start on another node",
		c.Name, pod, c.Spec.VolumeName, host, hostWords(nf.Hosts[host]), pod)
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

// Condition of the extended kind about the node-failure policy.
const (
	// ConditionClaimRecreation, on a set with volumes: Recreate, is True
	// while the policy is applied, False while it cannot be (the
	// controller may not delete claims in the namespace, or does not read
	// nodes), Unknown while the controller does not know yet.
	ConditionClaimRecreation     = "ClaimRecreation"
	ReasonClaimRecreationApplied = "Applied"
	ReasonClaimDeletionForbidden = "ClaimDeletionForbidden"
	ReasonNodesNotRead           = "NodesNotRead"
	ReasonClaimDeletionUnknown   = "ClaimDeletionUnknown"
)

// claimRecreationCondition sets ClaimRecreation on a set with volumes:
// Recreate and removes it from any other.
func (p *planner) claimRecreationCondition(conds *[]metav1.Condition, set func(typ string, status metav1.ConditionStatus, reason, msg string)) {
	nf := &nodeView{p.ext.NodeFailure, p.nodeFacts()}
	if nf.NodeFailure == nil || nf.Volumes != v1alpha1.RecreateNodeFailureVolumes {
		removeCondition(conds, ConditionClaimRecreation)
		return
	}
	ns := p.set.Namespace
	switch {
	case nf.Nodes == nil:
		set(ConditionClaimRecreation, metav1.ConditionFalse, ReasonNodesNotRead, "the controller does not read nodes (it watches one namespace without --read-nodes): volumes: Recreate is not applied and no claim is deleted")
	case nf.ClaimDeletion == PermissionAllowed:
		set(ConditionClaimRecreation, metav1.ConditionTrue, ReasonClaimRecreationApplied, fmt.Sprintf(
			"volumes: Recreate is applied: the controller may delete PersistentVolumeClaims in namespace %s, and gives up a claim whose volume's host no node carries, or whose nodes are NotReady and fenced, for %s", ns, quarantineWords(nf)))
	case nf.ClaimDeletion == PermissionDenied:
		set(ConditionClaimRecreation, metav1.ConditionFalse, ReasonClaimDeletionForbidden, p.mayNotWords()+": volumes: Recreate is not applied and no claim is deleted")
	default:
		set(ConditionClaimRecreation, metav1.ConditionUnknown, ReasonClaimDeletionUnknown, p.mayNotWords())
	}
}
