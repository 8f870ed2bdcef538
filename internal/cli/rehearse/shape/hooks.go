package shape

import (
	"fmt"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// HookLabels are the labels of the extended kind's lifecycle hooks: a
// hook in progress labels its pod Pending, and a handshake waits for Done.
var HookLabels = []string{
	v1alpha1.PreUpdateHookLabel, v1alpha1.PreDeleteHookLabel, v1alpha1.SwitchoverHookLabel,
	v1alpha1.PostCreateHookLabel, v1alpha1.PostUpdateHookLabel,
}

// Disarm makes the set's lifecycle hooks handshakes, which the rehearsal
// answers Done: a copy must never call the source's receivers (an http
// hook's URL or a Service's endpoint may be production's), nor wait for
// an operator who is not there. The notes name each hook changed. An
// apps/v1 set has no hooks and comes back as it is.
func (s Set) Disarm() (Set, []string) {
	if s.Extended == nil || s.Extended.Spec.Lifecycle == nil {
		return s, nil
	}
	out := s.DeepCopy()
	l := out.Extended.Spec.Lifecycle
	var notes []string
	for _, h := range []struct {
		name string
		hook *v1alpha1.LifecycleHook
	}{{"preUpdate", l.PreUpdate}, {"preDelete", l.PreDelete}, {"switchover", l.Switchover}, {"postCreate", l.PostCreate}, {"postUpdate", l.PostUpdate}} {
		switch {
		case h.hook == nil:
		case h.hook.HTTP != nil || h.hook.Service != nil:
			h.hook.HTTP, h.hook.Service, h.hook.Handshake = nil, nil, &v1alpha1.HandshakeHook{}
			notes = append(notes, fmt.Sprintf("the %s hook is not called in the copy: it is answered Done at once, so the time its receiver takes is not in the forecast", h.name))
		default:
			notes = append(notes, fmt.Sprintf("the %s handshake is answered Done at once in the copy, so the time its operator takes is not in the forecast", h.name))
		}
	}
	return out, notes
}
