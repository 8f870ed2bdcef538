package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// judgeExtendedDeletion checks the extended kind's deletion rules for a
// controller deletion of an unfinished in-range pod: RulePausedDelete,
// RuleUpdatedDelete and RuleAvailableDelete. It reports whether it judged
// the deletion: one rule broke, or the user asked for it.
func (r *replay) judgeExtendedDeletion(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) bool {
	k := key(pod.Namespace, pod.Name)
	// A pod the user labelled for deletion may go even while paused and at
	// the update revision, but only within maxUnavailable.
	requested := r.notTheUpdates(ev, pod)
	if allSpecs(specs, st.paused) && !requested {
		r.violate(RulePausedDelete, k, ev, "the set is paused, yet the controller deleted an unfinished pod in its range")
		return true
	}
	if rev, ok := updateRevisionWithin(specs); ok && pod.Labels[RevisionLabel] == rev && !requested {
		r.violate(RuleUpdatedDelete, k, ev, "the controller deleted an unfinished pod at the update revision %s", rev)
		return true
	}
	// The rollout's order and partition do not bind a requested delete.
	if (!requested && !allSpecs(specs, rollingUpdate)) || !r.availableThroughout(ev, specs, pod) {
		return requested
	}
	if !requested {
		r.judgeTopology(ev, st, specs, ord, pod)
		r.judgeCountPartition(ev, st, specs, ord, pod)
	} else if allSpecs(specs, rollingUpdate) {
		r.judgeMoveDomain(ev, st, specs, ord, pod)
	}
	for _, s := range specs {
		if r.unavailableThroughout(ev, s, ord) < maxUnavailableOf(s) {
			return requested
		}
	}
	set := specs[len(specs)-1]
	r.violate(RuleAvailableDelete, k, ev, "deleted %s, Available all along, while %d other pods of the range were unavailable all along (maxUnavailable %d)",
		pod.Name, r.unavailableThroughout(ev, set, ord), maxUnavailableOf(set))
	return true
}

// updateRevisionWithin returns the update revision every version of the
// window agrees on, each with its generation observed; false when they do
// not agree or one was not observed (its update revision is not known).
func updateRevisionWithin(specs []*appsv1.StatefulSet) (string, bool) {
	rev := specs[0].Status.UpdateRevision
	for _, s := range specs {
		if s.Status.ObservedGeneration != s.Generation || s.Status.UpdateRevision != rev || rev == "" {
			return "", false
		}
	}
	return rev, true
}

// availableThroughout reports whether pod (whose deletion ev is) was
// healthy, minReadySeconds included, at every instant of the window.
func (r *replay) availableThroughout(ev Event, specs []*appsv1.StatefulSet, pod *corev1.Pod) bool {
	minReady := specs[len(specs)-1].Spec.MinReadySeconds
	for _, s := range specs {
		minReady = max(minReady, s.Spec.MinReadySeconds)
	}
	// The deletion's own version is not in the history yet.
	hist := r.pods[key(pod.Namespace, pod.Name)].history
	return hist.heldThroughout(ev.Time.Add(-r.opts.Window), ev.Time, func(p *corev1.Pod, at time.Time) bool {
		return p != nil && p.UID == pod.UID && r.healthyAt(p, minReady, at)
	})
}

// unavailableThroughout counts the ordinals of set's range other than ord
// whose pod was not healthy at any instant of the window (missing,
// terminating, not Ready or not yet Available): a lower bound on the
// unavailable pods the controller saw whatever its view's age.
func (r *replay) unavailableThroughout(ev Event, set *appsv1.StatefulSet, ord int32) int {
	return r.takenThroughout(ev, set, ord, nil)
}

// takenThroughout is unavailableThroughout that also counts the ordinals
// busy holds.
func (r *replay) takenThroughout(ev Event, set *appsv1.StatefulSet, ord int32, busy map[int32]bool) int {
	from := ev.Time.Add(-r.opts.Window)
	n := 0
	for _, j := range r.setOrdinals(set) {
		if j == ord {
			continue
		}
		healthy := r.podHistory(set.Namespace, set.Name, j).heldWithin(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
			return r.healthyAt(p, set.Spec.MinReadySeconds, at)
		})
		if !healthy || busy[j] {
			n++
		}
	}
	return n
}

// selfHealDelete reports whether a deletion may be self-healing's: some
// version of the window heals, and the pod was not Running and Ready at
// some instant of it.
func (r *replay) selfHealDelete(ev Event, st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod) bool {
	if !anySpec(specs, st.selfHealing) {
		return false
	}
	hist := r.pods[key(pod.Namespace, pod.Name)].history
	return hist.heldWithin(ev.Time.Add(-r.opts.Window), ev.Time, func(p *corev1.Pod, _ time.Time) bool {
		return p != nil && p.UID == pod.UID && !runningAndReady(p)
	})
}

// judgeHealOrder checks RuleOrderedUpdate for self-healing under
// OrderedReady: the healed pod is the first unhealthy one, so every
// in-range predecessor was healthy within the window.
func (r *replay) judgeHealOrder(ev Event, st *setTrack, set *appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	if j, ok := r.unhealthyPredecessor(ev, set, ord); ok {
		r.violate(RuleOrderedUpdate, key(pod.Namespace, pod.Name), ev, "OrderedReady self-healing deleted %s while predecessor %s was not healthy within the last %s",
			pod.Name, podName(set.Name, j), r.opts.Window)
	}
}

// unhealthyPredecessor returns the lowest of the set's ordinals below ord
// whose pod was not healthy at some instant of the window before ev.
func (r *replay) unhealthyPredecessor(ev Event, set *appsv1.StatefulSet, ord int32) (int32, bool) {
	from := ev.Time.Add(-r.opts.Window)
	for _, j := range r.setOrdinals(set) {
		if j >= ord {
			break
		}
		ok := r.podHistory(set.Namespace, set.Name, j).heldWithin(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
			return r.healthyAt(p, set.Spec.MinReadySeconds, at)
		})
		if !ok {
			return j, true
		}
	}
	return 0, false
}

// recreateDelete reports whether a deletion may be the Recreate strategy's,
// which deletes every old-revision pod at once: every version of the
// window is Recreate and one of them has another update revision.
func (r *replay) recreateDelete(st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod) bool {
	return allSpecs(specs, st.recreate) && anySpec(specs, func(s *appsv1.StatefulSet) bool {
		return s.Status.UpdateRevision != pod.Labels[RevisionLabel]
	})
}

// judgeRecreateCreate checks RuleRecreate for a pod created under Recreate.
func (r *replay) judgeRecreateCreate(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	if !allSpecs(specs, st.recreate) {
		return
	}
	rev := pod.Labels[RevisionLabel]
	for _, j := range keys(st.ordinals) {
		pt := r.pods[key(pod.Namespace, podName(st.name, j))]
		if j == ord || pt == nil || pt.live == nil || !owned(pt.live, st.uid) {
			continue
		}
		if other := pt.live.Labels[RevisionLabel]; other != rev {
			r.violate(RuleRecreate, key(pod.Namespace, pod.Name), ev, "Recreate: created at revision %s while %s of revision %s still exists",
				rev, pt.live.Name, other)
			return
		}
	}
}

func runningAndReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
