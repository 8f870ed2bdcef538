package osts

import (
	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// memberHooks adds spec.lifecycle's member hooks (postCreate, postUpdate)
// to e: hooks like the others, about the revision the pod runs.
func memberHooks(e *planner.Extended, namespace string, l *v1alpha1.Lifecycle) {
	if e.PostCreate = hook(namespace, "postCreate", v1alpha1.PostCreateHookLabel, l.PostCreate); e.PostCreate != nil {
		e.PostCreate.Member = true
	}
	if e.PostUpdate = hook(namespace, "postUpdate", v1alpha1.PostUpdateHookLabel, l.PostUpdate); e.PostUpdate != nil {
		e.PostUpdate.Member = true
	}
}

// Offline is the set's spec.offlineOrdinals as the planner reads them; as
// with Reserved, an entry that does not parse (the schema refuses it)
// leaves the others in force.
func Offline(s *v1alpha1.StatefulSet) []planner.OrdinalRange {
	ranges, _ := v1alpha1.ParseOfflineOrdinals(s.Spec.OfflineOrdinals)
	if len(ranges) == 0 {
		return nil
	}
	out := make([]planner.OrdinalRange, len(ranges))
	for i, r := range ranges {
		out[i] = planner.OrdinalRange{Low: r.Low, High: r.High}
	}
	return out
}

// members is the plan's member list as status.members.
func members(x planner.ExtendedStatus) []v1alpha1.MemberStatus {
	if len(x.Members) == 0 {
		return nil
	}
	out := make([]v1alpha1.MemberStatus, len(x.Members))
	for i, m := range x.Members {
		out[i] = v1alpha1.MemberStatus{Ordinal: m.Ordinal, Pod: m.Pod, State: m.State, Revision: m.Revision,
			Ready: m.Ready, UpToDate: m.UpToDate, ClaimsInStep: m.ClaimsInStep, Role: m.Role}
		for _, h := range m.Hooks {
			out[i].Hooks = append(out[i].Hooks, v1alpha1.MemberHook{Name: h.Name, State: h.State})
		}
	}
	return out
}
