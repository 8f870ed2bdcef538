package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// countPartition reports whether version v of an extended set counts its
// partition in pods (rollingUpdate.partitionMode Count).
func (st *setTrack) countPartition(v *appsv1.StatefulSet) bool {
	x := st.extOf(v)
	return x != nil && x.Spec.UpdateStrategy.RollingUpdate != nil && x.Spec.UpdateStrategy.RollingUpdate.PartitionMode == v1alpha1.PartitionCount
}

// judgeCountPartition checks RuleCountPartition for a controller
// deletion of an in-range pod Available throughout the window, not
// labelled for deletion.
func (r *replay) judgeCountPartition(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	if !allSpecs(specs, st.countPartition) {
		return
	}
	rev, ok := updateRevisionWithin(specs)
	if !ok || pod.Labels[RevisionLabel] == rev {
		return
	}
	for _, s := range specs {
		if r.boundThroughout(ev, s, ord, rev) < len(r.setOrdinals(s))-int(partitionOf(s)) {
			return
		}
	}
	set := specs[len(specs)-1]
	r.violate(RuleCountPartition, key(pod.Namespace, pod.Name), ev,
		"deleted %s, at an old revision, while %d other pods were at the update revision, terminating or missing all along: partition (Count) %d of %d pods",
		pod.Name, r.boundThroughout(ev, set, ord, rev), partitionOf(set), len(r.setOrdinals(set)))
}

// boundThroughout counts the ordinals of set's range other than ord
// whose pod was, at every instant of the window, missing, terminating or
// at the update revision rev.
func (r *replay) boundThroughout(ev Event, set *appsv1.StatefulSet, ord int32, rev string) int {
	from := ev.Time.Add(-r.opts.Window)
	n := 0
	for _, j := range r.setOrdinals(set) {
		if j == ord {
			continue
		}
		if r.podHistory(set.Namespace, set.Name, j).heldThroughout(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool {
			return p == nil || p.DeletionTimestamp != nil || p.Labels[RevisionLabel] == rev
		}) {
			n++
		}
	}
	return n
}
