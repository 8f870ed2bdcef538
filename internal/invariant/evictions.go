package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// evicted reports whether the pod was taken by the Eviction API, whoever
// asked: the API server marks it DisruptionTarget (reason
// EvictionByEvictionAPI) before it deletes it.
func evicted(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == "EvictionByEvictionAPI" {
			return true
		}
	}
	return false
}

// keepsBudget reports whether version v is an extended set with
// spec.disruptionBudget.
func (st *setTrack) keepsBudget(v *appsv1.StatefulSet) bool {
	x := st.extOf(v)
	return x != nil && x.Spec.DisruptionBudget != nil
}

// judgeEviction checks RuleQuorumFloor and RuleSwitchoverEvict for the
// first deletion of a pod of an extended set that the Eviction API made,
// whoever asked for it: a drain, a person, or the controller itself. A
// deletion recorded as the test's (ExternalDelete) is judged too when it
// is an eviction: that is the outside disruption the set's budget is
// for.
func (r *replay) judgeEviction(ev Event, st *setTrack, ord int32, before, pod *corev1.Pod) {
	if !st.extended() || ev.Relisted || finished(before) || finished(pod) || !evicted(pod) && !evicted(before) {
		return
	}
	pt := r.pods[key(pod.Namespace, pod.Name)]
	if pt.evictJudged[pod.UID] {
		return
	}
	pt.evictJudged[pod.UID] = true
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 || st.gone || !allSpecs(specs, st.keepsBudget) || anySpec(specs, func(s *appsv1.StatefulSet) bool { return !r.inRange(s, ord) }) {
		return
	}
	r.judgeSwitchoverEvict(ev, st, specs, pod)
	if !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return hasQuorum(st.extOf(s)) }) {
		return
	}
	if size, available, broken := r.quorumBroken(ev, st, specs, ord, pod); broken {
		r.violate(RuleQuorumFloor, key(pod.Namespace, pod.Name), ev,
			"evicted %s, an Available quorum member, while at most %d of a quorum of at least %d members were Available, counting the members down for any cause: fewer than a majority are left",
			pod.Name, available, size)
	}
}

// judgeSwitchoverEvict checks RuleSwitchoverEvict: an eviction of a pod
// whose every state in the window held a role exclusive in every version
// and carried a switchover under way (its label, not Failed).
func (r *replay) judgeSwitchoverEvict(ev Event, st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod) {
	if !allSpecs(specs, func(s *appsv1.StatefulSet) bool {
		x := st.extOf(s)
		return x.Spec.Lifecycle != nil && x.Spec.Lifecycle.Switchover != nil
	}) {
		return
	}
	hist := r.pods[key(pod.Namespace, pod.Name)].history
	if hist.heldThroughout(ev.Time.Add(-r.opts.Window), ev.Time, func(p *corev1.Pod, _ time.Time) bool {
		if p == nil || p.UID != pod.UID {
			return false
		}
		if state, ok := p.Labels[v1alpha1.SwitchoverHookLabel]; !ok || state == v1alpha1.HookFailed {
			return false
		}
		for _, s := range specs {
			if role, ok := roleOf(st.extOf(s), p); !ok || !role.Exclusive {
				return false
			}
		}
		return true
	}) {
		r.violate(RuleSwitchoverEvict, key(pod.Namespace, pod.Name), ev,
			"evicted %s while it held an exclusive role with its switchover under way all along: the role had not moved yet", pod.Name)
	}
}
