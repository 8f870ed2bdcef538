package dashboard

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

func TestABurstOfChangesReachesAPageAsOneLatestUpdate(t *testing.T) {
	var state, renders atomic.Int64
	h := newHub(time.Second, func(string) ([]byte, error) {
		renders.Add(1)
		return []byte(strconv.FormatInt(state.Load(), 10)), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.run(ctx)
	sub, err := h.subscribe("set/k/ns/web")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(<-sub.ch); got != "0" {
		t.Fatalf("first payload %q, want the state at subscription, 0", got)
	}
	for i := 1; i <= 100; i++ {
		state.Store(int64(i))
		h.mark("set/k/ns/web", "set/k/ns/unwatched")
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case p := <-sub.ch:
			if string(p) != "100" {
				continue
			}
			// One render at subscription, then at most two for the burst:
			// the first change at once, the rest after the interval.
			if n := renders.Load(); n > 3 {
				t.Errorf("%d renders for a burst of 100 changes, want at most 3", n)
			}
			return
		case <-deadline:
			t.Fatalf("the final state never arrived; %d renders", renders.Load())
		}
	}
}

func TestAnUnwatchedTopicIsNeverRendered(t *testing.T) {
	var renders atomic.Int64
	h := newHub(time.Millisecond, func(string) ([]byte, error) { renders.Add(1); return []byte("x"), nil })
	h.mark("set/k/ns/web")
	h.flush()
	if n := renders.Load(); n != 0 {
		t.Errorf("%d renders with no page open, want 0", n)
	}
}
