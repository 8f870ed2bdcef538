package controller

import (
	"context"
	"time"
)

// A status held back because the client was busy (statusBound) waits for
// the hold to end only while the client stays busy. Without a wake-up, a
// set whose last change came during a busy second would keep a stale
// status for the whole hold (DefaultStatusHold, 30 s) when no later event
// syncs it: `kubectl rollout status` and `helm --wait` would see a pod at
// the new revision counted only half a minute later.
const (
	// statusQuiet is how long no request may have waited for a token
	// before the statuses held for the client's load are looked at again:
	// as long as the debounce every status change waits for, so that the
	// short gaps between a busy client's requests do not write each held
	// status (the hold exists to collapse those writes into one).
	statusQuiet = statusDebounce
	// busyPoll is how often the client is asked whether it is busy while a
	// status waits for it to be quiet; nothing polls while none waits.
	busyPoll = 50 * time.Millisecond
)

// quietWatch syncs the sets whose status change was held back for the
// client's load again once the client has been quiet for statusQuiet. The
// sets it watches are marked in the status deferrals' memory
// (deferral.forLoad).
type quietWatch struct {
	held *perSet[deferral]
	busy func() bool
	// nudge wakes run when a set is marked; it holds one nudge, which is
	// all run needs to look at every marked set.
	nudge chan struct{}
	// quietSince is when the current watch first found the client not
	// busy; zero while it is busy. Only run (through check) touches it.
	quietSince time.Time
}

func newQuietWatch(held *perSet[deferral], busy func() bool) *quietWatch {
	return &quietWatch{held: held, busy: busy, nudge: make(chan struct{}, 1)}
}

// watch marks key's held status as waiting for the client to be quiet.
func (w *quietWatch) watch(key string) {
	w.held.update(key, func(st *deferral) { st.forLoad = true })
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

// run calls requeue with every marked set once the client has been quiet
// for statusQuiet after a set was marked, until ctx ends. A requeued set
// whose client is busy again by its sync is held and marked again, for
// what is left of its hold.
func (w *quietWatch) run(ctx context.Context, requeue func(key string)) {
	tick := time.NewTicker(busyPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.nudge:
		}
		w.quietSince = time.Time{}
		for {
			keys, quiet := w.check(time.Now())
			if quiet {
				for _, key := range keys {
					requeue(key)
				}
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}
}

// check looks at the client at now: once it has been quiet for
// statusQuiet, it unmarks and returns the marked sets, and reports quiet.
func (w *quietWatch) check(now time.Time) ([]string, bool) {
	switch {
	case w.busy():
		w.quietSince = time.Time{}
		return nil, false
	case w.quietSince.IsZero():
		w.quietSince = now
	}
	if now.Sub(w.quietSince) < statusQuiet {
		return nil, false
	}
	return takeHeldForLoad(w.held), true
}

// takeHeldForLoad unmarks and returns the sets whose held status waits for
// the client to be quiet.
func takeHeldForLoad(held *perSet[deferral]) []string {
	var keys []string
	held.each(func(key string, st *deferral) {
		if st.forLoad {
			st.forLoad = false
			keys = append(keys, key)
		}
	})
	return keys
}
