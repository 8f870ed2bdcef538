package controller

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// idlePodControl applies nothing, so that a sync causes no pod event that
// would sync the set again.
type idlePodControl struct{}

func (idlePodControl) Apply(context.Context, *appsv1.StatefulSet, string, []planner.Step) error {
	return nil
}

// A count-only status change held because the client was busy is written
// soon after the client stops being busy, not when the 30 s hold ends: no
// other event may come (a pod that never turns Ready), and `kubectl rollout
// status` would read the stale counts all that time.
func TestAStatusHeldForABusyClientIsWrittenOnceTheClientIsQuiet(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	rev := testgen.RevisionOf(set, 1)
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: set.Generation, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
		CurrentReplicas: 1, UpdatedReplicas: 1, CurrentRevision: rev.Name, UpdateRevision: rev.Name, CollisionCount: ptr.To[int32](0)}
	var busy atomic.Bool
	busy.Store(true)
	t0 := time.Now()
	var now atomic.Pointer[time.Time]
	now.Store(&t0)
	c, client := newTestControllerWith(t, Options{Workers: 1, Busy: busy.Load, StatusHold: DefaultStatusHold}, func(c *Controller) {
		c.now, c.podControl = func() time.Time { return *now.Load() }, idlePodControl{}
	}, set, rev, testgen.Pod(set, 0, testgen.At(rev)), testgen.Pod(set, 1, testgen.At(rev)))
	key := set.Namespace + "/" + set.Name
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// The informers' first events queue the set; while the client is busy,
	// its sync holds the change (web-1 counted) back.
	waitCached(t, "the set queued", func() bool { return c.queue.Len() > 0 })
	for c.queue.Len() > 0 {
		c.loop().Next(ctx)
	}
	stored := func() appsv1.StatefulSetStatus {
		s, err := client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.Status
	}
	if st := stored(); st.Replicas != 1 {
		t.Fatalf("status %s written while the client was busy; want the count-only change held", describe(st))
	}
	if _, held := c.deferred.pending(key, set.Generation); !held {
		t.Fatal("no status change held back")
	}

	// The client is quiet again, past the debounce but well within the
	// hold: the held change must go out without another event.
	later := t0.Add(2 * statusDebounce)
	now.Store(&later)
	busy.Store(false)
	quiet := time.Now()
	go func() { _ = c.Run(ctx, 1) }()
	for st := stored(); st.Replicas != 2; st = stored() {
		if time.Since(quiet) > 10*time.Second {
			t.Fatalf("status %s 10s after the client became quiet; want web-1 counted (replicas 2) well before the %s hold ends",
				describe(st), DefaultStatusHold)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("written %s after the client became quiet", time.Since(quiet).Round(time.Millisecond))
}

// The watch wakes held sets only after the client has been quiet for
// statusQuiet: the short gaps between a busy client's requests leave the
// held statuses alone, which is what holding them is for.
func TestTheQuietWatchWaitsForAQuietClient(t *testing.T) {
	var busy atomic.Bool
	w := newQuietWatch(newPerSet[deferral](&memories{}), busy.Load)
	w.watch("ns/a")
	w.watch("ns/b")
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at          time.Duration
		busy, quiet bool
		want        []string
	}{
		{0, true, false, nil},
		{100 * time.Millisecond, false, false, nil},
		{statusQuiet, true, false, nil}, // a gap shorter than statusQuiet
		{statusQuiet + 100*time.Millisecond, false, false, nil},
		{2*statusQuiet + 50*time.Millisecond, false, false, nil},
		{2*statusQuiet + 100*time.Millisecond, false, true, []string{"ns/a", "ns/b"}},
		{2*statusQuiet + 200*time.Millisecond, false, true, nil}, // unmarked once woken
	}
	for _, s := range steps {
		busy.Store(s.busy)
		got, quiet := w.check(t0.Add(s.at))
		slices.Sort(got)
		if !slices.Equal(got, s.want) || quiet != s.quiet {
			t.Errorf("at %s (busy %t): woke %v (quiet %t), want %v (quiet %t)", s.at, s.busy, got, quiet, s.want, s.quiet)
		}
	}
	select {
	case <-w.nudge:
	default:
		t.Error("marking a set did not nudge the watch")
	}
}

// A status that is written forgets that it waited for a quiet client, and
// so does a deleted set.
func TestAWrittenStatusNoLongerWaitsForAQuietClient(t *testing.T) {
	ms := &memories{}
	d := statusDeferrals{held: newPerSet[deferral](ms)}
	w := newQuietWatch(d.held, func() bool { return false })
	w.watch("ns/written")
	w.watch("ns/deleted")
	w.watch("ns/held")
	d.done("ns/written")
	ms.forget("ns/deleted")
	if got := takeHeldForLoad(d.held); !slices.Equal(got, []string{"ns/held"}) {
		t.Errorf("woken %v, want only ns/held", got)
	}
}
