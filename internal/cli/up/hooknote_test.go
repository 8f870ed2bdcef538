package up

import (
	"testing"

	"github.com/ordinal-sh/ordinal/internal/plane"
)

// `ordinal up` says that its controller lets hooks call loopback, and how
// to turn that off; it says nothing when they may not, or when the plane
// runs no Ordinal controller.
func TestUpNotesThatHooksMayCallLoopback(t *testing.T) {
	cfg := plane.NewConfig()
	want := "Lifecycle hooks may call 127.0.0.0/8, ::1/128 here, unlike in a cluster (the API server's port excepted); --hook-allow-cidrs= turns that off"
	if got := hookNote(cfg); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	off := cfg
	off.Controller.HookAllowCIDRs = nil
	other := cfg
	other.StatefulSetController = plane.ControllerBuiltin
	for name, c := range map[string]plane.Config{"--hook-allow-cidrs=": off, "--statefulset-controller builtin": other} {
		if got := hookNote(c); got != "" {
			t.Errorf("with %s: note %q, want none", name, got)
		}
	}
}
