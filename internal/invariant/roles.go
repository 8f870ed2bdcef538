package invariant

import (
	"encoding/json"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// roleOf is the role pod has under version x's spec.roles; ok is false
// without one.
func roleOf(x *v1alpha1.StatefulSet, pod *corev1.Pod) (v1alpha1.Role, bool) {
	if x == nil || x.Spec.Roles == nil || pod == nil {
		return v1alpha1.Role{}, false
	}
	value, labelled := pod.Labels[x.Spec.Roles.LabelKey]
	if !labelled {
		return v1alpha1.Role{}, false
	}
	for _, r := range x.Spec.Roles.Values {
		if r.Name == value {
			return r, true
		}
	}
	return v1alpha1.Role{}, false
}

// judgeRoles checks RuleQuorumDelete and RuleSwitchover for a controller
// deletion of a started, unfinished pod of an extended set; condemned
// says the pod is outside some version's range (scale-in, which the
// quorum does not bind).
func (r *replay) judgeRoles(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod, condemned bool) {
	if !st.extended() || pod.Status.Phase == "" {
		return
	}
	if r.judgeSwitchover(ev, st, specs, ord, pod, "deleted") || condemned {
		return
	}
	r.judgeQuorum(ev, st, specs, ord, pod)
}

// judgeSwitchover checks RuleSwitchover for a disruption (what: "deleted",
// or "took out of service") of pod and reports whether it broke.
func (r *replay) judgeSwitchover(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod, what string) bool {
	if !st.haltsIn(specs, switchoverHook) {
		return false
	}
	from := ev.Time.Add(-r.opts.Window)
	hist := r.pods[key(pod.Namespace, pod.Name)].history
	held := hist.heldThroughout(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool {
		if p == nil || p.UID != pod.UID {
			return false
		}
		for _, s := range specs {
			if role, ok := roleOf(st.extOf(s), p); !ok || !role.Exclusive {
				return false
			}
		}
		return true
	})
	if held {
		r.violate(RuleSwitchover, key(pod.Namespace, pod.Name), ev, "%s %s while it held an exclusive role all along, under a switchover with failurePolicy Halt", what, pod.Name)
		return true
	}
	role := switchoverRole(pod)
	if role == "" || !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return exclusiveIn(st.extOf(s), role) }) {
		return false
	}
	x := st.extOf(specs[len(specs)-1])
	for _, j := range keys(st.ordinals) {
		if j == ord {
			continue
		}
		if r.podHistory(pod.Namespace, st.name, j).heldWithin(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool {
			return p != nil && p.DeletionTimestamp == nil && runningAndReady(p) && p.Labels[x.Spec.Roles.LabelKey] == role
		}) {
			return false
		}
	}
	r.violate(RuleSwitchover, key(pod.Namespace, pod.Name), ev, "%s %s, whose switchover moves %s, while no other Ready pod held it", what, pod.Name, role)
	return true
}

// switchoverRole is the role the pod's switchover was started for, ""
// without one or when the switchover did not answer (Failed).
func switchoverRole(pod *corev1.Pod) string {
	state, ok := pod.Labels[v1alpha1.SwitchoverHookLabel]
	if !ok || state == v1alpha1.HookFailed {
		return ""
	}
	var rec v1alpha1.HookRecord
	if json.Unmarshal([]byte(pod.Annotations[v1alpha1.SwitchoverHookLabel]), &rec) != nil {
		return ""
	}
	return rec.Role
}

func exclusiveIn(x *v1alpha1.StatefulSet, role string) bool {
	if x == nil || x.Spec.Roles == nil {
		return false
	}
	for _, r := range x.Spec.Roles.Values {
		if r.Name == role {
			return r.Exclusive
		}
	}
	return false
}

func switchoverHook(l *v1alpha1.Lifecycle) *v1alpha1.LifecycleHook { return l.Switchover }

// judgeQuorum checks RuleQuorumDelete for a controller deletion of an
// in-range pod.
func (r *replay) judgeQuorum(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	if !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return rollingUpdate(s) && hasQuorum(st.extOf(s)) }) {
		return
	}
	if size, available, broken := r.quorumBroken(ev, st, specs, ord, pod); broken {
		r.violate(RuleQuorumDelete, key(pod.Namespace, pod.Name), ev,
			"deleted %s, an Available quorum member, while at most %d of a quorum of at least %d members were Available: fewer than a majority are left",
			pod.Name, available, size)
	}
}

// quorumBroken reports whether taking pod away broke its set's quorum,
// as RuleQuorumDelete counts it: the pod was an Available member all
// along the window, and with it gone fewer than a majority of a quorum
// of at least 3 stay Available (size and available as quorumBounds
// bounds them).
func (r *replay) quorumBroken(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) (size, available int, broken bool) {
	from, minReady := ev.Time.Add(-r.opts.Window), maxMinReady(specs)
	member := func(p *corev1.Pod, at time.Time) bool {
		for _, s := range specs {
			if role, ok := roleOf(st.extOf(s), p); !ok || !role.Quorum {
				return false
			}
		}
		return r.surelyAvailable(p, minReady, at)
	}
	hist := r.pods[key(pod.Namespace, pod.Name)].history
	if !hist.heldThroughout(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
		return p != nil && p.UID == pod.UID && member(p, at)
	}) {
		return 0, 0, false // it may have been seen as no Available member
	}
	size, available = r.quorumBounds(st, specs, ord, from, ev.Time)
	return size, available, size >= 3 && available-1 < size/2+1
}

// quorumBounds bounds what the controller can have seen within the
// window: size is the least quorum size (every version's ordinals less
// the ordinals labelled with a role that is not a quorum role at some
// instant), available the most Available members (the deleted pod and
// the ordinals that were, at some instant, surely Available and labelled
// with a quorum role of some version).
func (r *replay) quorumBounds(st *setTrack, specs []*appsv1.StatefulSet, ord int32, from, to time.Time) (size, available int) {
	size, available = -1, 1
	for _, s := range specs {
		x := st.extOf(s)
		n := 0
		for _, j := range r.setOrdinals(s) {
			n++
			if r.podHistory(s.Namespace, st.name, j).heldWithin(from, to, func(p *corev1.Pod, _ time.Time) bool {
				role, ok := roleOf(x, p)
				return ok && !role.Quorum
			}) {
				n--
			}
		}
		if size < 0 || n < size {
			size = n
		}
	}
	seen := map[int32]bool{ord: true}
	for _, s := range specs {
		for _, j := range r.setOrdinals(s) {
			if !seen[j] && r.mayBeMember(st, specs, j, from, to) {
				available++
			}
			seen[j] = true
		}
	}
	return size, available
}

// mayBeMember reports whether the pod at ordinal j was, at some instant
// of the window, Running and Ready (whatever minReadySeconds: the benefit
// of the doubt) and labelled with a quorum role of some version.
func (r *replay) mayBeMember(st *setTrack, specs []*appsv1.StatefulSet, j int32, from, to time.Time) bool {
	return r.podHistory(specs[0].Namespace, st.name, j).heldWithin(from, to, func(p *corev1.Pod, _ time.Time) bool {
		if p == nil || p.DeletionTimestamp != nil || !runningAndReady(p) {
			return false
		}
		for _, s := range specs {
			if role, ok := roleOf(st.extOf(s), p); ok && role.Quorum {
				return true
			}
		}
		return false
	})
}

func hasQuorum(x *v1alpha1.StatefulSet) bool {
	if x == nil || x.Spec.Roles == nil {
		return false
	}
	for _, r := range x.Spec.Roles.Values {
		if r.Quorum {
			return true
		}
	}
	return false
}
