package controller

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

func TestAWarningIsReportedOnceWhileItLasts(t *testing.T) {
	w := newPerSet[warned](&memories{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := planner.Warning{Reason: "StorageMismatch", Object: "Pod/web-0", Message: "m"}
	b := planner.Warning{Reason: "StorageMismatch", Object: "Pod/web-1", Message: "m"}
	steps := []struct {
		name     string
		at       time.Duration
		planned  []planner.Warning
		reported []planner.Warning
	}{
		{"a new warning is reported", 0, []planner.Warning{a}, []planner.Warning{a}},
		{"the same warning on the next sync is not", time.Second, []planner.Warning{a}, nil},
		{"a second warning is, and only it", 2 * time.Second, []planner.Warning{a, b}, []planner.Warning{b}},
		{"a warning a plan skipped for a while is not news", 3 * time.Second, []planner.Warning{b}, nil},
		{"so it is not reported when it is planned again", 4 * time.Second, []planner.Warning{a, b}, nil},
		{"a warning gone for longer than the quiet time is news again", 4*time.Second + warningQuiet + time.Second, []planner.Warning{a}, []planner.Warning{a}},
	}
	for _, s := range steps {
		got := freshWarnings(w, "ns/web", s.planned, t0.Add(s.at))
		if diff := cmp.Diff(s.reported, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	w.forget("ns/web")
	if got := freshWarnings(w, "ns/web", []planner.Warning{a}, t0); len(got) != 1 {
		t.Errorf("after forget, want the warning reported again, got %v", got)
	}
}
