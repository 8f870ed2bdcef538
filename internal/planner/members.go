package planner

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// MaxMembers bounds ExtendedStatus.Members (status.members).
const MaxMembers = v1alpha1.MaxMembers

// memberHookLabels are the hooks status.members reports, in order.
var memberHookLabels = []struct{ name, label string }{
	{"preUpdate", v1alpha1.PreUpdateHookLabel}, {"preDelete", v1alpha1.PreDeleteHookLabel},
	{"switchover", v1alpha1.SwitchoverHookLabel}, {"postCreate", v1alpha1.PostCreateHookLabel},
	{"postUpdate", v1alpha1.PostUpdateHookLabel},
}

// members lists the set's members for status.members, lowest ordinal
// first, and how many did not fit. The members are the ordinals of the
// set as replicas counts them: each pod in range, each ordinal still
// without one (Missing), and each offline one (Offline, with its pod while
// it is being stopped). When there are more than MaxMembers, those that
// need attention (anything but Running, Ready, at the update revision,
// claims in step and no hook under way) are kept first, then the others
// by ordinal. What it costs follows MaxMembers and the pods that exist,
// never spec.replicas.
func (p *planner) members() ([]Member, int32) {
	// Each source keeps at most MaxMembers of its attention members and of
	// the others, lowest ordinal first, so that what is kept stays small
	// whatever the set's size.
	var attention, fine []Member
	for _, s := range p.replicas {
		switch m := p.member(s.ordinal, s.pod, ""); {
		case m.attention():
			if len(attention) < MaxMembers {
				attention = append(attention, m)
			}
		case len(fine) < MaxMembers:
			fine = append(fine, m)
		}
	}
	total := int64(len(p.replicas))
	total += p.eachMissing(func(ord int32) { attention = append(attention, p.member(ord, nil, v1alpha1.MemberMissing)) })
	var leaving map[int32]*corev1.Pod // an offline member's pod while it is being stopped
	total += p.eachOffline(func(ord int32) {
		if leaving == nil {
			leaving = make(map[int32]*corev1.Pod, len(p.condemned))
			for _, c := range p.condemned {
				leaving[c.ordinal] = c.pod
			}
		}
		attention = append(attention, p.member(ord, leaving[ord], v1alpha1.MemberOffline))
	})
	byOrdinal := func(a, b Member) int { return cmp.Compare(a.Ordinal, b.Ordinal) }
	slices.SortFunc(attention, byOrdinal)
	out := attention[:min(len(attention), MaxMembers)]
	out = append(out, fine[:min(len(fine), MaxMembers-len(out))]...)
	slices.SortFunc(out, byOrdinal)
	return out, int32(min(total-int64(len(out)), int64(1<<31-1)))
}

// eachMissing calls f with the first MaxMembers of the set's ordinals
// that have no pod, and returns how many there are.
func (p *planner) eachMissing(f func(ord int32)) int64 {
	left := MaxMembers
	if p.missing() > 0 {
		p.eachOrdinal(func(ord int32, s *slot) bool {
			if s == nil {
				f(ord)
				left--
			}
			return left > 0
		})
	}
	return int64(p.missing())
}

// eachOffline calls f with the first MaxMembers offline ordinals among
// the set's, and returns how many there are.
func (p *planner) eachOffline(f func(ord int32)) int64 {
	if len(p.offlineRanges()) == 0 {
		return 0
	}
	full := NewLayout(p.start, Replicas(p.set), p.reservations())
	last, ok := full.Last()
	if !ok {
		return 0
	}
	left := MaxMembers
	for _, r := range mergeRanges(p.offlineRanges(), p.start) {
		for ord := int64(r.Low); ord <= int64(min(r.High, last)) && left > 0; ord++ {
			if _, in := full.Index(int32(ord)); in {
				f(int32(ord))
				left--
			}
		}
	}
	return int64(full.Len() - p.layout.Len())
}

// member describes the member at ord: its pod (nil when it has none) and
// state, which the pod decides when state is empty.
func (p *planner) member(ord int32, pod *corev1.Pod, state string) Member {
	m := Member{Ordinal: ord, State: state, ClaimsInStep: p.claimsInStep(ord)}
	if pod == nil {
		m.Pod = PodName(p.set.Name, ord)
		return m
	}
	m.Pod = pod.Name
	if m.State == "" {
		m.State = podState(pod)
	}
	m.Revision, m.Ready = podRevision(pod), IsRunningAndReady(pod)
	m.UpToDate = m.Revision == p.update
	if p.ext.Roles != nil {
		m.Role = pod.Labels[p.ext.Roles.LabelKey]
	}
	for _, h := range memberHookLabels {
		if v, ok := pod.Labels[h.label]; ok {
			m.Hooks = append(m.Hooks, MemberHook{Name: h.name, State: v})
		}
	}
	return m
}

// podState is a member's state from its pod.
func podState(pod *corev1.Pod) string {
	switch {
	case isTerminating(pod):
		return v1alpha1.MemberTerminating
	case pod.Status.Phase == corev1.PodFailed:
		return v1alpha1.MemberFailed
	case pod.Status.Phase == corev1.PodSucceeded:
		return v1alpha1.MemberSucceeded
	case pod.Status.Phase == corev1.PodRunning:
		return v1alpha1.MemberRunning
	}
	return v1alpha1.MemberPending
}

// claimsInStep reports whether each claim of the member at ord exists
// and matches its template of the update revision (claimMatches).
func (p *planner) claimsInStep(ord int32) bool {
	templates := p.updateSet.Spec.VolumeClaimTemplates
	for i := range templates {
		if !claimMatches(claimAt(p.in.Claims, templates[i].Name, p.set.Name, ord), &templates[i]) {
			return false
		}
	}
	return true
}

// attention reports whether the member needs a look: anything but a pod
// Running, Ready, at the update revision, with its claims in step and no
// hook under way.
func (m Member) attention() bool {
	if m.State != v1alpha1.MemberRunning || !m.Ready || !m.UpToDate || !m.ClaimsInStep {
		return true
	}
	return slices.ContainsFunc(m.Hooks, func(h MemberHook) bool { return h.State != v1alpha1.HookDone })
}
