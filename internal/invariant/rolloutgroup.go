package invariant

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// groupOf is version v's rollingUpdate.rolloutGroup, "" without one.
func (st *setTrack) groupOf(v *appsv1.StatefulSet) string {
	x := st.extOf(v)
	if x == nil || !rollingUpdate(v) || x.Spec.UpdateStrategy.RollingUpdate == nil {
		return ""
	}
	return x.Spec.UpdateStrategy.RollingUpdate.RolloutGroup
}

// judgeGroup checks RuleRolloutGroup for a controller deletion of an
// unfinished in-range pod of extended set st that the user did not label
// for deletion: a rolling update's delete (or self-healing's, which
// replaces only pods of an old revision, so during an update too).
func (r *replay) judgeGroup(ev Event, st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod) {
	if !st.extended() {
		return
	}
	g := st.groupOf(specs[0])
	if g == "" || !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return st.groupOf(s) == g }) {
		return
	}
	if r.notTheUpdates(ev, pod) {
		return // the user's delete, not the update's
	}
	for _, other := range r.sets {
		if other == st || !other.extended() || other.gone || other.cur == nil || other.ns != st.ns || other.groupOf(other.cur) != g {
			continue
		}
		if r.midUpdate(other) {
			r.violate(RuleRolloutGroup, key(pod.Namespace, pod.Name), ev, "deleted %s for an update of %s while %s of rollout group %s was updating too",
				pod.Name, st.name, other.name, g)
		}
	}
}

// midUpdate reports whether set st's live pods, at this commit, run more
// than one revision or include one terminating: it is updating.
func (r *replay) midUpdate(st *setTrack) bool {
	revs := map[string]bool{}
	for _, pt := range r.pods {
		p := pt.live
		if p == nil || p.Namespace != st.ns || !ownedBy(p, st) {
			continue
		}
		if p.DeletionTimestamp != nil {
			return true
		}
		revs[p.Labels[RevisionLabel]] = true
	}
	return len(revs) > 1
}

// ownedBy reports whether pod is a pod of st: named <set>-<ordinal> with
// st's controller reference.
func ownedBy(p *corev1.Pod, st *setTrack) bool {
	if _, ok := parseOrdinal(st.name, p.Name); !ok {
		return false
	}
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.UID == st.uid
}
