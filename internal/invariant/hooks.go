package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// haltsIn reports whether every version in specs has the hook that hook
// picks, with failurePolicy Halt (the schema's default).
func (st *setTrack) haltsIn(specs []*appsv1.StatefulSet, hook func(*v1alpha1.Lifecycle) *v1alpha1.LifecycleHook) bool {
	if len(specs) == 0 {
		return false
	}
	for _, s := range specs {
		x := st.extOf(s)
		if x == nil || x.Spec.Lifecycle == nil {
			return false
		}
		h := hook(x.Spec.Lifecycle)
		if h == nil || h.FailurePolicy == v1alpha1.HookProceed {
			return false
		}
	}
	return true
}

func preDelete(l *v1alpha1.Lifecycle) *v1alpha1.LifecycleHook { return l.PreDelete }
func preUpdate(l *v1alpha1.Lifecycle) *v1alpha1.LifecycleHook { return l.PreUpdate }

// answered reports whether some version of the pod with uid, up to at,
// was labelled Done for the hook label.
func (r *replay) answered(ns, setName string, ord int32, uid string, label string, at time.Time) bool {
	for _, s := range r.podHistory(ns, setName, ord) {
		if s.t.After(at) {
			break
		}
		if p := s.state; p != nil && string(p.UID) == uid && p.Labels[label] == v1alpha1.HookDone {
			return true
		}
	}
	return false
}

// judgeHookDelete checks RuleHookHalt for a controller deletion of a pod
// that had started (a phase), was not finished and was not deleted by
// someone else: under a preDelete hook that halts, in every version of the
// window, the pod was labelled Done at some point; under a preUpdate hook
// that halts, so was an in-range pod deleted at an old revision, unless
// it was labelled for deletion (which runs preDelete alone).
func (r *replay) judgeHookDelete(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, before, pod *corev1.Pod) {
	if !st.extended() || pod.Status.Phase == "" || (before != nil && before.Status.Phase == "") {
		return
	}
	k := key(pod.Namespace, pod.Name)
	if st.haltsIn(specs, preDelete) && !r.answered(pod.Namespace, st.name, ord, string(pod.UID), v1alpha1.PreDeleteHookLabel, ev.Time) {
		r.violate(RuleHookHalt, k, ev, "deleted %s, whose preDelete hook (failurePolicy Halt) never answered Done", pod.Name)
		return
	}
	condemned := anySpec(specs, func(s *appsv1.StatefulSet) bool { return !r.inRange(s, ord) })
	rev, known := updateRevisionWithin(specs)
	if condemned || !known || pod.Labels[RevisionLabel] == rev || r.notTheUpdates(ev, pod) {
		return
	}
	if st.haltsIn(specs, preUpdate) && !r.answered(pod.Namespace, st.name, ord, string(pod.UID), v1alpha1.PreUpdateHookLabel, ev.Time) {
		r.violate(RuleHookHalt, k, ev, "deleted %s at an old revision, whose preUpdate hook (failurePolicy Halt) never answered Done", pod.Name)
	}
}

// judgeHookGate checks RuleHookHalt when a pod's in-place gate turns
// False: under a preUpdate hook that halts in every version of the
// window, the pod was labelled Done at some point.
func (r *replay) judgeHookGate(ev Event, st *setTrack, ord int32, pod *corev1.Pod) {
	specs := r.specsWithin(st, ev.Time)
	if st.haltsIn(specs, preUpdate) && !r.answered(pod.Namespace, st.name, ord, string(pod.UID), v1alpha1.PreUpdateHookLabel, ev.Time) {
		r.violate(RuleHookHalt, key(pod.Namespace, pod.Name), ev, "took %s out of service for an update in place, whose preUpdate hook (failurePolicy Halt) never answered Done", pod.Name)
	}
	if st.extended() {
		r.judgeSwitchover(ev, st, specs, ord, pod, "took out of service")
	}
}
