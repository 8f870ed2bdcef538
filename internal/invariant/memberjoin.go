package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// joining reports whether pod waits on a member hook: labelled Pending
// for postCreate or postUpdate, and not terminating.
func joining(pod *corev1.Pod) bool {
	return pod != nil && pod.DeletionTimestamp == nil &&
		(pod.Labels[v1alpha1.PostCreateHookLabel] == v1alpha1.HookPending || pod.Labels[v1alpha1.PostUpdateHookLabel] == v1alpha1.HookPending)
}

// memberHooksIn reports whether every version in specs has a member hook
// and maxUnavailable 1, so that one joining pod uses the whole budget.
func (st *setTrack) memberHooksIn(specs []*appsv1.StatefulSet) bool {
	return len(specs) > 0 && allSpecs(specs, func(s *appsv1.StatefulSet) bool {
		x := st.extOf(s)
		return x != nil && x.Spec.Lifecycle != nil && (x.Spec.Lifecycle.PostCreate != nil || x.Spec.Lifecycle.PostUpdate != nil) &&
			maxUnavailableOf(s) == 1
	})
}

// joiningThroughout returns an ordinal of version v other than ord, below
// it when below is set, whose pod was joining at every instant of the
// window before ev.
func (r *replay) joiningThroughout(ev Event, v *appsv1.StatefulSet, ord int32, below bool) (int32, bool) {
	from := ev.Time.Add(-r.opts.Window)
	for _, j := range r.setOrdinals(v) {
		if j == ord || (below && j > ord) {
			continue
		}
		if r.podHistory(v.Namespace, v.Name, j).heldThroughout(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool { return joining(p) }) {
			return j, true
		}
	}
	return 0, false
}

// judgeMemberJoinDisruption checks RuleMemberJoin when the controller
// deletes the in-range pod at ord, or takes it out of service (what): the
// pod was Available throughout the window, and another pod was joining
// throughout it.
func (r *replay) judgeMemberJoinDisruption(ev Event, st *setTrack, ord int32, what string) {
	specs := r.specsWithin(st, ev.Time)
	if !st.extended() || !st.memberHooksIn(specs) || !allSpecs(specs, rollingUpdate) {
		return
	}
	set := specs[len(specs)-1]
	from := ev.Time.Add(-r.opts.Window)
	if !r.podHistory(st.ns, st.name, ord).heldThroughout(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
		return r.healthyAt(p, set.Spec.MinReadySeconds, at)
	}) {
		return
	}
	if j, ok := r.joiningThroughout(ev, set, ord, false); ok {
		r.violate(RuleMemberJoin, key(st.ns, podName(st.name, ord)), ev, "%s %s while %s waited on its member hook (maxUnavailable 1)",
			what, podName(st.name, ord), podName(st.name, j))
	}
}

// judgeMemberJoinCreate checks RuleMemberJoin for a pod created at ord
// under OrderedReady: no lower ordinal was joining throughout the window.
func (r *replay) judgeMemberJoinCreate(ev Event, st *setTrack, ord int32) {
	specs := r.specsWithin(st, ev.Time)
	if !st.extended() || !st.memberHooksIn(specs) || !allSpecs(specs, orderedReady) {
		return
	}
	if j, ok := r.joiningThroughout(ev, specs[len(specs)-1], ord, true); ok {
		r.violate(RuleMemberJoin, key(st.ns, podName(st.name, ord)), ev, "OrderedReady: created %s while %s waited on its member hook",
			podName(st.name, ord), podName(st.name, j))
	}
}
