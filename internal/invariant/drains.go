package invariant

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// notTheUpdates reports whether a controller deletion of pod is not the
// rolling update's: the user labelled the pod for deletion, (with nodes
// watched) its node was being drained within the window, which an
// extended set under nodeDrainPolicy Move answers by moving the pod off
// it, or (with evictions watched) an Eviction of the pod made the
// controller its active responder within the window (evictionrequests.go). Such a delete is bound by maxUnavailable, the quorum and the
// switchover like any other, not by the update's revision, order,
// partition, hooks or group.
func (r *replay) notTheUpdates(ev Event, pod *corev1.Pod) bool {
	return pod.Labels[v1alpha1.DeleteRequestedLabel] == "true" || r.onDrainedNode(ev, pod) || r.evictionAsked(ev, pod.UID)
}

// onDrainedNode reports whether pod's node was cordoned, or carried a
// drain taint, in some version of the window before ev. The checker
// re-derives a drain on its own, from the node's spec.
func (r *replay) onDrainedNode(ev Event, pod *corev1.Pod) bool {
	nt := r.nodes[pod.Spec.NodeName]
	if !r.opts.Nodes || nt == nil {
		return false
	}
	for _, n := range nt.history.within(ev.Time.Add(-r.opts.Window), ev.Time) {
		if n != nil && drainedNode(n) {
			return true
		}
	}
	return false
}

// drainedNode reports whether n is cordoned or carries a taint that
// announces a drain (node.kubernetes.io/unschedulable, the cluster
// autoscaler's, Karpenter's).
func drainedNode(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return true
	}
	for _, t := range n.Spec.Taints {
		switch t.Key {
		case corev1.TaintNodeUnschedulable, "ToBeDeletedByClusterAutoscaler", "karpenter.sh/disrupted":
			return true
		}
	}
	return false
}
