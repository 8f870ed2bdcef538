package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// weights gives pods their weight under one version's priority rules.
type weights struct {
	values    []int64
	selectors []labels.Selector
}

func (w weights) of(pod *corev1.Pod) int64 {
	var sum int64
	for i, sel := range w.selectors {
		if sel.Matches(labels.Set(pod.Labels)) {
			sum += w.values[i]
		}
	}
	return sum
}

// priorityWeights reads the priority rules of every version; false when
// a version has none, is not a rolling update, has a rule that cannot be
// read (the controller then holds the update) or has roles (which order
// the update first).
func (st *setTrack) priorityWeights(specs []*appsv1.StatefulSet) ([]weights, bool) {
	out := make([]weights, 0, len(specs))
	for _, s := range specs {
		x := st.extOf(s)
		if x == nil || !rollingUpdate(s) || x.Spec.UpdateStrategy.RollingUpdate == nil || len(x.Spec.UpdateStrategy.RollingUpdate.Priority) == 0 || x.Spec.Roles != nil {
			return nil, false
		}
		var w weights
		for _, rule := range x.Spec.UpdateStrategy.RollingUpdate.Priority {
			sel, err := metav1.LabelSelectorAsSelector(&rule.Selector)
			if err != nil {
				return nil, false
			}
			w.values, w.selectors = append(w.values, int64(rule.Weight)), append(w.selectors, sel)
		}
		out = append(out, w)
	}
	return out, true
}

// judgePriority checks RulePriorityOrder for a controller deletion of an
// unfinished in-range pod of an extended set.
func (r *replay) judgePriority(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	ws, ok := st.priorityWeights(specs)
	if !ok {
		return
	}
	rev, known := updateRevisionWithin(specs)
	if known && pod.Labels[RevisionLabel] == rev {
		return // updated-delete's to judge
	}
	deleted, ok := r.rollingCandidate(ev, specs, pod)
	if !ok {
		return
	}
	set := specs[len(specs)-1]
	for _, j := range keys(st.ordinals) {
		if j == ord || !r.replacedInEvery(st, specs, j) {
			continue
		}
		waiting, ok := r.waitingOld(ev, st, specs, j, oldness(pod, rev, known))
		if ok && rankedBefore(ws, waiting, deleted, j, ord) {
			r.violate(RulePriorityOrder, key(pod.Namespace, pod.Name), ev,
				"the rolling update deleted %s (weight %d) while %s (weight %d), Available at an old revision, ranked before it all along",
				pod.Name, ws[len(ws)-1].of(pod), podName(set.Name, j), ws[len(ws)-1].of(waiting[len(waiting)-1]))
			return
		}
	}
}

// rollingCandidate returns the states of a deleted pod object within the
// window when only the budgeted rolling update can have deleted it:
// surely Available in each (so neither replaced for free nor self-healed)
// and labelled for deletion in none. The controller deletes with the
// pod's UID as a precondition, so it saw one of these states; earlier
// objects of the name do not count.
func (r *replay) rollingCandidate(ev Event, specs []*appsv1.StatefulSet, pod *corev1.Pod) ([]*corev1.Pod, bool) {
	from, minReady := ev.Time.Add(-r.opts.Window), maxMinReady(specs)
	var states []*corev1.Pod
	ok := r.pods[key(pod.Namespace, pod.Name)].history.heldThroughout(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
		if p == nil || p.UID != pod.UID {
			return true
		}
		states = append(states, p)
		return r.surelyAvailable(p, minReady, at) && !r.notTheUpdates(ev, p)
	})
	return append(states, pod), ok && len(states) > 0
}

// oldness is what makes a waiting pod's revision old in the controller's
// view: the deleted pod's own revision, which the rolling update deleted
// it for, or any other than the update revision when every version of
// the window agrees on one.
func oldness(deleted *corev1.Pod, rev string, known bool) func(string) bool {
	same := deleted.Labels[RevisionLabel]
	return func(r string) bool { return r == same || known && r != rev }
}

// replacedInEvery reports whether every version wants a pod at ordinal j
// and lets the rolling update replace it: in range, at or above the
// partition counted from the start (and from 0), not paused.
func (r *replay) replacedInEvery(st *setTrack, specs []*appsv1.StatefulSet, j int32) bool {
	return allSpecs(specs, func(s *appsv1.StatefulSet) bool {
		start, _ := span(s)
		return r.inRange(s, j) && int64(j) >= int64(start)+int64(st.partitionOf(s))
	})
}

// waitingOld returns the states within the window of the pod at ordinal
// j when it waited for the rolling update all along: one pod object of
// the set at every instant, not terminating, at an old revision and
// surely Available.
func (r *replay) waitingOld(ev Event, st *setTrack, specs []*appsv1.StatefulSet, j int32, old func(string) bool) ([]*corev1.Pod, bool) {
	from, minReady := ev.Time.Add(-r.opts.Window), maxMinReady(specs)
	hist := r.podHistory(specs[0].Namespace, st.name, j)
	states := hist.within(from, ev.Time)
	if len(states) == 0 || states[0] == nil {
		return nil, false
	}
	uid := states[0].UID
	ok := hist.heldThroughout(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
		return p != nil && p.UID == uid && owned(p, st.uid) && p.DeletionTimestamp == nil &&
			old(p.Labels[RevisionLabel]) && r.surelyAvailable(p, minReady, at)
	})
	return states, ok
}

// rankedBefore reports whether, under every version's rules and every
// label state of both pods, the waiting pod at ordinal j weighs more than
// the deleted one at ord, or both weigh one same weight and j > ord.
func rankedBefore(ws []weights, waiting, deleted []*corev1.Pod, j, ord int32) bool {
	for _, w := range ws {
		lowW, highW := bounds(w, waiting)
		lowD, highD := bounds(w, deleted)
		tie := lowW == highW && lowD == highD && lowW == lowD && j > ord
		if lowW <= highD && !tie {
			return false
		}
	}
	return true
}

// bounds is the least and greatest weight of the states.
func bounds(w weights, states []*corev1.Pod) (low, high int64) {
	for i, p := range states {
		x := w.of(p)
		if i == 0 || x < low {
			low = x
		}
		if i == 0 || x > high {
			high = x
		}
	}
	return low, high
}

// surelyAvailable is healthyAt without the benefit of the doubt: Ready for
// minReadySeconds plus ReadySlack, so that the controller, whatever its
// clock, saw the pod Available too.
func (r *replay) surelyAvailable(p *corev1.Pod, minReady int32, at time.Time) bool {
	if p.DeletionTimestamp != nil || !runningAndReady(p) {
		return false
	}
	if minReady == 0 {
		return true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return !c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(time.Duration(minReady)*time.Second+r.opts.ReadySlack).After(at)
		}
	}
	return false
}

func maxMinReady(specs []*appsv1.StatefulSet) int32 {
	var m int32
	for _, s := range specs {
		m = max(m, s.Spec.MinReadySeconds)
	}
	return m
}
