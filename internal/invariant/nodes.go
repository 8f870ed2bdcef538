package invariant

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// nodeTrack is one node's observed states; nil is absent (deleted).
type nodeTrack struct{ history timeline[*corev1.Node] }

func (r *replay) applyNode(ev Event, node *corev1.Node) {
	r.applyNodeLabels(ev, node)
	if !r.opts.Nodes {
		return // only labels (nodewatch.go): no conditions nor taints to judge
	}
	nt := r.nodes[node.Name]
	if nt == nil {
		nt = &nodeTrack{}
		r.nodes[node.Name] = nt
	}
	if ev.Type == watch.Deleted {
		nt.history.add(ev.Time, nil)
		return
	}
	nt.history.add(ev.Time, node)
}

func (r *replay) applyVolume(ev Event, pv *corev1.PersistentVolume) {
	// A deleted volume is kept: a claim deleted after its volume still
	// names it.
	r.volumes[pv.Name] = pv
}

// judgeForceDeletion checks RuleForceDeletePolicy and RuleForceDeleteLive
// on a pod's first terminating version or its DELETED event; before is its
// previous version.
func (r *replay) judgeForceDeletion(ev Event, st *setTrack, before, pod *corev1.Pod) {
	if st == nil || ev.Relisted || r.external[before.UID] || !forcedAt(ev, before, pod) {
		return
	}
	k := key(before.Namespace, before.Name)
	if !r.replacesLostPods(st) {
		r.violate(RuleForceDeletePolicy, k, ev, "pod %s was force-deleted (gone without terminating, grace period %ds) although no version of its set has nodeFailurePolicy.replaceAfterSeconds",
			before.Name, grace(before))
	}
	if !r.opts.Nodes {
		return
	}
	node := before.Spec.NodeName
	nt := r.nodes[node]
	if nt == nil {
		return // never observed: gone before the watch began
	}
	from := ev.Time.Add(-r.opts.Window)
	if !nt.history.heldWithin(from, ev.Time, func(n *corev1.Node, _ time.Time) bool { return n == nil || readyStatus(n) == corev1.ConditionUnknown }) {
		r.violate(RuleForceDeleteLive, k, ev, "pod %s was force-deleted while its node %s answered (Ready True or False) or had no Ready condition", before.Name, node)
	}
}

// forcedAt reports whether pod, the version of ev, shows a force
// deletion of before: before was Running on a node, not terminating, with
// a grace period above 0, and pod is gone (DELETED) or terminating with a
// deletion grace period of 0. An ordinary delete of before would have
// given it its grace period. A pod not yet Running is left out: a delete
// the API server judged while the pod was still unscheduled (grace 0)
// can remove it just after the scheduler bound it.
func forcedAt(ev Event, before, pod *corev1.Pod) bool {
	if before == nil || before.Spec.NodeName == "" || before.DeletionTimestamp != nil || before.Status.Phase != corev1.PodRunning || grace(before) <= 0 {
		return false
	}
	return ev.Type == watch.Deleted || (pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds == 0)
}

// grace is the pod's termination grace period; the API server defaults
// it to 30s.
func grace(p *corev1.Pod) int64 {
	if p.Spec.TerminationGracePeriodSeconds == nil {
		return 30
	}
	return *p.Spec.TerminationGracePeriodSeconds
}

func nodeReady(n *corev1.Node) bool { return readyStatus(n) == corev1.ConditionTrue }

// readyStatus is the status of n's Ready condition, "" when it has none.
func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func outOfService(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeOutOfService {
			return true
		}
	}
	return false
}

// replacesLostPods reports whether some version of the extended set st
// has nodeFailurePolicy.replaceAfterSeconds.
func (r *replay) replacesLostPods(st *setTrack) bool {
	return r.anyPolicy(st, func(p *v1alpha1.NodeFailurePolicy) bool { return p.ReplaceAfterSeconds != nil })
}

func (r *replay) anyPolicy(st *setTrack, pred func(*v1alpha1.NodeFailurePolicy) bool) bool {
	if !st.extended() {
		return false
	}
	for _, s := range st.history {
		if s.state == nil {
			continue
		}
		if x := st.ext[s.state]; x != nil && x.Spec.NodeFailurePolicy != nil && pred(x.Spec.NodeFailurePolicy) {
			return true
		}
	}
	return false
}

// claimOfLostNode reports whether a claim's deletion is allowed by
// RuleClaimDeleted's node-failure clause, and if not, why: some version of
// the extended set has nodeFailurePolicy.volumes Recreate and, with
// Options.Nodes, the claim's volume is pinned to a host (hosts.go) that
// was lost at some instant of the window (the controller's live read) and,
// with Options.Quarantine, throughout [t-Quarantine, t-Window].
func (r *replay) claimOfLostNode(ev Event, st *setTrack, prev, claim *corev1.PersistentVolumeClaim) (bool, string) {
	if st == nil || !r.anyPolicy(st, func(p *v1alpha1.NodeFailurePolicy) bool { return p.Volumes == v1alpha1.RecreateNodeFailureVolumes }) {
		return false, ""
	}
	if !r.opts.Nodes {
		return true, ""
	}
	name := claim.Spec.VolumeName
	if name == "" && prev != nil {
		name = prev.Spec.VolumeName
	}
	host := volumeHost(r.volumes[name])
	if host == "" {
		return false, fmt.Sprintf("; its volume %q is pinned to no one host", name)
	}
	if !r.hostLostWithin(host, ev.Time.Add(-r.opts.Window), ev.Time) {
		return false, fmt.Sprintf("; under volumes: Recreate, but its volume's host %s had a live node (Ready, or not fenced) throughout the window", host)
	}
	if q := r.opts.Quarantine; q > r.opts.Window {
		if why := r.hostLostThroughout(host, ev.Time.Add(-q), ev.Time.Add(-r.opts.Window)); why != "" {
			return false, fmt.Sprintf("; under volumes: Recreate, but its volume's host %s was not lost for the quarantine (%s): %s", host, q, why)
		}
	}
	return true, ""
}

// volumeHost is the one host a volume's required node affinity allows,
// by kubernetes.io/hostname, or "" when it allows none or more.
func volumeHost(pv *corev1.PersistentVolume) string {
	if pv == nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return ""
	}
	host := ""
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Key != corev1.LabelHostname || e.Operator != corev1.NodeSelectorOpIn || len(e.Values) != 1 || (host != "" && host != e.Values[0]) {
				return ""
			}
			host = e.Values[0]
		}
	}
	return host
}
