package controller

import (
	"strings"
	"testing"

	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// A kind the controller syncs without a door would fail its first sync
// (targetOf) or panic in a handler (doorFor): every kind has one, and it
// is its own.
func TestEveryKindHasItsOwnDoor(t *testing.T) {
	if len(doors) != len(setkind.All) {
		t.Errorf("%d doors for %d kinds", len(doors), len(setkind.All))
	}
	for _, k := range setkind.All {
		d, ok := doors[k]
		if !ok {
			t.Errorf("%s has no door", k)
			continue
		}
		if d.kind() != k {
			t.Errorf("the door of %s says it is %s's", k, d.kind())
		}
	}
	if _, err := (&Controller{}).targetOf("any/ns/web"); err == nil {
		t.Errorf("a key of no kind found a target")
	}
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, "no door for kind any") {
			t.Errorf("doorFor(Any) recovered %q, want a panic naming the kind", r)
		}
	}()
	doorFor(setkind.Any)
}
