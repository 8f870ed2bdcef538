package planner_test

import (
	"testing"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

func TestSplitPodNameFindsTheSetAsUpstreamDoes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		set     string
		ordinal int32
		ok      bool
	}{
		{"web-0", "web", 0, true},
		{"my-web-12", "my-web", 12, true},
		{"web-01", "web", 1, true},
		{"data-web-3", "data-web", 3, true},
		{"-4", "", 4, true},
		{"web", "", 0, false},
		{"web-", "", 0, false},
		{"web-x", "", 0, false},
		{"web-1a", "", 0, false},
		{"web-+1", "", 0, false},
		{"web-2147483647", "web", 2147483647, true},
		{"web-2147483648", "", 0, false},
	} {
		set, ord, ok := planner.SplitPodName(tc.name)
		if set != tc.set || ord != tc.ordinal || ok != tc.ok {
			t.Errorf("SplitPodName(%q) = %q, %d, %t; want %q, %d, %t", tc.name, set, ord, ok, tc.set, tc.ordinal, tc.ok)
		}
	}
}
