package forecast

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const s = time.Second

// rollout is an OrderedReady rollout of web (3 pods) from revision a to b
// as an observer sees it: each pod terminates for 2s, is gone for a
// moment, starts for 3s.
func rollout() []Sample {
	var out []Sample
	for _, pod := range []string{"web-0", "web-1", "web-2"} {
		out = append(out, Sample{At: 0, Pod: pod, Revision: "a", Ready: true})
	}
	at := time.Duration(0)
	for _, pod := range []string{"web-2", "web-1", "web-0"} {
		out = append(out,
			Sample{At: at + 100*time.Millisecond, Pod: pod, Revision: "a", Ready: true, Terminating: true},
			Sample{At: at + 2100*time.Millisecond, Pod: pod, Gone: true},
			Sample{At: at + 2200*time.Millisecond, Pod: pod, Revision: "b"},
			Sample{At: at + 5200*time.Millisecond, Pod: pod, Revision: "b", Ready: true},
		)
		at += 5200 * time.Millisecond
	}
	return append(out, Sample{At: 3 * s, Pod: "db-0", Revision: "x"}, Sample{At: 4 * s, Pod: "web-x", Revision: "x"})
}

func TestTracksSplitAPodsLifeByRevisionAndStateAndSkipTheGaps(t *testing.T) {
	tracks := Tracks("web", rollout(), 16*s)
	if len(tracks) != 3 || tracks[0].Pod != "web-0" || tracks[2].Ordinal != 2 {
		t.Fatalf("tracks %+v, want web-0, web-1, web-2 in order and no other pod", tracks)
	}
	want := []Segment{
		{From: 0, To: Seconds(100 * time.Millisecond), Revision: "a", State: Ready, Before: true},
		{From: Seconds(100 * time.Millisecond), To: Seconds(2100 * time.Millisecond), Revision: "a", State: Terminating},
		{From: Seconds(2200 * time.Millisecond), To: Seconds(5200 * time.Millisecond), Revision: "b", State: Starting},
		{From: Seconds(5200 * time.Millisecond), To: Seconds(16 * s), Revision: "b", State: Ready},
	}
	if diff := cmp.Diff(want, tracks[2].Segments); diff != "" {
		t.Errorf("web-2 (-want +got):\n%s", diff)
	}
}

func TestCountsFollowReadyAndAvailablePods(t *testing.T) {
	tracks := Tracks("web", rollout(), 16*s)
	counts := Counts(tracks, 0)
	ready, avail := Fewest(counts, 16*s)
	if ready != 2 || avail != 2 {
		t.Errorf("fewest %d Ready, %d Available; want 2 and 2", ready, avail)
	}
	// With minReadySeconds 2, a new pod is Available 2s after Ready: the
	// last pod is Ready at 15.6s and the run ends at 16s, so one pod is
	// short of Available while the next is taken down.
	counts = Counts(tracks, 2*s)
	if ready, avail = Fewest(counts, 16*s); ready != 2 || avail != 1 {
		t.Errorf("with minReadySeconds 2: fewest %d Ready, %d Available; want 2 and 1", ready, avail)
	}
	if got := Below(Counts(tracks, 0), 3, 16*s); got != 3*(5100*time.Millisecond) {
		t.Errorf("below 3 Ready for %s, want 3 × 5.1s", got)
	}
}

func TestTheStateAtTheChangeCountsForARunThatEndsAtOnce(t *testing.T) {
	counts := Counts(Tracks("web", rollout()[:3], 0), 0)
	if ready, _ := Fewest(counts, 0); ready != 3 {
		t.Errorf("fewest Ready of a run that ends at once = %d, want the 3 Ready at the change", ready)
	}
}
