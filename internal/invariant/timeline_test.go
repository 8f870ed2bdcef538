package invariant

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Events reach the checker on one watch per kind, so an event committed
// earlier (lower resourceVersion) can be received later than an event of
// another kind that depends on it. These histories give the events
// increasing resourceVersions in the order written, with receive times
// out of that order.
func TestAStateReceivedLateButCommittedBeforeADecisionJustifiesIt(t *testing.T) {
	cases := []struct {
		name    string
		history func() *history
		want    []Rule
	}{{
		name: "the partition lowered to 2 is committed before web-2's delete but received 200ms after it",
		history: func() *history {
			h := threeReady(partition(3), revisions("web-r1", "web-r2"))
			h.add(5.2, modified, mkSet(3, partition(2), revisions("web-r1", "web-r2")))
			return h.add(5.0, modified, mkPod(2, "a", ready, terminating))
		},
	}, {
		name: "the partition lowered to 2 only after web-2's delete is committed still breaks the partition",
		history: func() *history {
			h := threeReady(partition(3), revisions("web-r1", "web-r2"))
			h.add(5.0, modified, mkPod(2, "a", ready, terminating))
			return h.add(5.2, modified, mkSet(3, partition(2), revisions("web-r1", "web-r2")))
		},
		want: []Rule{RulePartitionDelete},
	}, {
		name: "web-2's deletion is committed before web-1's scale-down delete but received after it",
		history: func() *history {
			h := threeReady().add(30, modified, mkSet(1))
			h.add(30.1, modified, mkPod(2, "a", ready, terminating)).add(30.6, deleted, mkPod(2, "a", ready, terminating))
			return h.add(30.5, modified, mkPod(1, "a", ready, terminating))
		},
	}, {
		name: "web-1 deleted while web-2 is still there, in commit order, breaks ordered scale-down",
		history: func() *history {
			h := threeReady().add(30, modified, mkSet(1))
			h.add(30.1, modified, mkPod(2, "a", ready, terminating)).add(30.5, modified, mkPod(1, "a", ready, terminating))
			return h.add(30.6, deleted, mkPod(2, "a", ready, terminating))
		},
		want: []Rule{RuleOrderedScaleDown},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.history().rules()); diff != "" {
				t.Errorf("rules broken (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHeldWithinCountsEveryStateOfTheTimelineThatOverlapsTheWindow(t *testing.T) {
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	var tl timeline[string]
	tl.add(at(0), "a")
	tl.add(at(10), "b")
	tl.add(at(21), "c") // received after the window's end: committed before the decision
	if diff := cmp.Diff([]string{"b", "c"}, tl.within(at(15), at(20))); diff != "" {
		t.Errorf("states within [15s, 20s] (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, tl.within(at(5), at(20))); diff != "" {
		t.Errorf("states within [5s, 20s] (-want +got):\n%s", diff)
	}
}

func TestHeldThroughoutAsksEachStateAboutItsEarliestInstantInTheWindow(t *testing.T) {
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	// A state is "ripe" from 3s after it begins, as a pod turns Available
	// minReadySeconds after it turns Ready.
	var tl timeline[time.Time]
	tl.add(at(0), at(3))
	tl.add(at(10), at(13))
	ripe := func(since time.Time, when time.Time) bool { return !when.Before(since) }
	cases := []struct {
		name     string
		from, to float64
		want     bool
	}{
		{"the second state only, ripe over the whole window", 13, 20, true},
		{"the first state, not yet ripe at the window's start", 2, 8, false},
		{"the second state begins unripe inside the window", 4, 15, false},
		// Received after the window: committed before its end, so current
		// at the end, and not ripe then.
		{"the second state received after the window counts at its end", 4, 9, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tl.heldThroughout(at(tc.from), at(tc.to), ripe); got != tc.want {
				t.Errorf("heldThroughout [%gs, %gs] = %t, want %t", tc.from, tc.to, got, tc.want)
			}
		})
	}
	var empty timeline[time.Time]
	if empty.heldThroughout(at(0), at(1), ripe) {
		t.Errorf("an empty timeline held throughout")
	}
}
