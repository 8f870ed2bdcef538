package controller

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestASetIsSyncedAtOnceUntilItsBucketIsEmptyThenOncePerInterval(t *testing.T) {
	t0 := time.Unix(1000, 0)
	const pods = 2000 // interval 100 ms
	interval := pods * paceIntervalPerPod
	for _, tc := range []struct {
		name  string
		syncs []time.Duration // when each sync began, from t0
		at    time.Duration   // when the next is wanted
		want  time.Duration
	}{
		{name: "a set never synced waits for nothing", at: 0, want: 0},
		{name: "one sync leaves syncs in the bucket", syncs: []time.Duration{0}, at: time.Millisecond, want: 0},
		{name: "a burst of syncs empties the bucket: the next waits an interval",
			syncs: []time.Duration{0, 0, 0, 0}, at: 0, want: interval},
		{name: "part of the interval has passed", syncs: []time.Duration{0, 0, 0, 0}, at: 40 * time.Millisecond, want: 60 * time.Millisecond},
		{name: "after a quiet interval the first change is synced at once",
			syncs: []time.Duration{0, 0, 0, 0}, at: interval, want: 0},
		{name: "a storm is synced once per interval",
			syncs: []time.Duration{0, 0, 0, 0, interval, 2 * interval}, at: 2 * interval, want: interval},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPaces(&memories{})
			for _, at := range tc.syncs {
				s.paced("ns/web", t0.Add(at), pods)
			}
			if got := s.paceWait("ns/web", t0.Add(tc.at)); got != tc.want {
				t.Errorf("wait %s, want %s", got, tc.want)
			}
		})
	}
}

func TestTheIntervalFollowsTheSetsSizeUpToASecond(t *testing.T) {
	t0 := time.Unix(1000, 0)
	got := map[int]time.Duration{}
	for _, pods := range []int{0, 50, 1000, 40000} {
		s := newPaces(&memories{})
		for range paceBurst + 1 {
			s.paced("ns/web", t0, pods)
		}
		got[pods] = s.paceWait("ns/web", t0)
	}
	want := map[int]time.Duration{0: 0, 50: 2500 * time.Microsecond, 1000: 50 * time.Millisecond, 40000: time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wait after an empty bucket, by pods (-want +got):\n%s", diff)
	}
}

// A set being synced that gets many changes meanwhile is synced once more
// afterwards, not once per change: at once while its bucket holds a sync,
// else once the bucket has one again.
func TestChangesDuringASyncAreSyncedOnceMore(t *testing.T) {
	const pods = 1000
	for _, tc := range []struct {
		name        string
		earlier     int // syncs just before
		queuedAtEnd int // keys queued when the sync ends
	}{
		{name: "the bucket has syncs left", earlier: 0, queuedAtEnd: 1},
		{name: "the bucket is empty", earlier: paceBurst - 1, queuedAtEnd: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestController(t)
			for range tc.earlier {
				c.paces.paced("ns/web", time.Now(), pods)
			}
			c.enqueue("ns/web")
			key, _ := c.queue.Get()
			c.paces.paced(key, time.Now(), pods) // as sync does
			for range 100 {
				c.enqueue("ns/web")
			}
			c.queue.Done(key)
			if got := c.queue.Len(); got != tc.queuedAtEnd {
				t.Fatalf("%d keys queued when the sync ends, want %d", got, tc.queuedAtEnd)
			}
			waitFor(t, "the next sync", func() bool { return c.queue.Len() == 1 })
			key, _ = c.queue.Get()
			c.queue.Done(key)
			if got := c.queue.Len(); got != 0 {
				t.Errorf("%d keys queued after the second sync, want none", got)
			}
		})
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
