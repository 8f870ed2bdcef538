package workloop

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

func newQueue() workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Millisecond))
}

// A failed sync is told to Failed and retried with backoff; a success
// forgets the key's failures.
func TestAFailedSyncIsRetriedAndASuccessForgetsItsFailures(t *testing.T) {
	q := newQueue()
	defer q.ShutDown()
	attempts := 0
	var failed []string
	l := Loop[string]{Queue: q,
		Sync: func(_ context.Context, key string) (time.Duration, error) {
			if attempts++; attempts < 3 {
				return 0, errors.New("not yet")
			}
			return 0, nil
		},
		Failed: func(_ context.Context, key string, err error) { failed = append(failed, key+": "+err.Error()) },
	}
	q.Add("a")
	for range 3 {
		if !l.Next(context.Background()) {
			t.Fatal("Next returned false before the queue was shut down")
		}
	}
	if attempts != 3 || len(failed) != 2 || failed[0] != "a: not yet" {
		t.Errorf("%d attempts, failures told %q; want 3 attempts and two failures of a", attempts, failed)
	}
	if n := q.NumRequeues("a"); n != 0 {
		t.Errorf("after a success the key has %d requeues, want 0", n)
	}
	if q.Len() != 0 {
		t.Errorf("%d keys left in the queue, want none", q.Len())
	}
}

// A positive duration looks at the key again after that long, not before.
func TestASyncThatAsksForATimeSeesItsKeyAgainThen(t *testing.T) {
	q := newQueue()
	defer q.ShutDown()
	var seen []time.Time
	l := Loop[string]{Queue: q, Sync: func(context.Context, string) (time.Duration, error) {
		seen = append(seen, time.Now())
		if len(seen) == 1 {
			return 50 * time.Millisecond, nil
		}
		return 0, nil
	}}
	q.Add("a")
	l.Next(context.Background())
	l.Next(context.Background())
	if len(seen) != 2 || seen[1].Sub(seen[0]) < 50*time.Millisecond {
		t.Errorf("the key was seen again after %v, want at least 50ms", seen[1].Sub(seen[0]))
	}
}

// Run stops once ctx ends, after the workers have finished their keys,
// and leaves the queue shut down.
func TestRunReturnsOnceItsWorkersHaveFinished(t *testing.T) {
	q := newQueue()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	busy, finished := 0, 0
	started := make(chan struct{}, 4)
	l := Loop[string]{Queue: q, Sync: func(ctx context.Context, _ string) (time.Duration, error) {
		mu.Lock()
		busy++
		mu.Unlock()
		started <- struct{}{}
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		busy--
		finished++
		mu.Unlock()
		return 0, nil
	}}
	q.Add("a")
	q.Add("b")
	done := make(chan struct{})
	go func() { l.Run(ctx, 2); close(done) }()
	<-started
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if busy != 0 || finished != 2 {
		t.Errorf("Run returned with %d syncs running and %d finished, want 0 and 2", busy, finished)
	}
	if !q.ShuttingDown() {
		t.Error("the queue is not shut down after Run")
	}
}
