package invariant

import (
	"fmt"
	"time"
)

var sprintf = fmt.Sprintf

// sample is the state of one thing from time t until the next sample.
type sample[T any] struct {
	t     time.Time
	state T
}

// timeline is a thing's states in commit order.
type timeline[T any] []sample[T]

func (tl *timeline[T]) add(t time.Time, state T) {
	*tl = append(*tl, sample[T]{t: t, state: state})
}

// heldWithin reports whether pred held at some instant of [from, to]: for
// the state current at from and for each later state, pred is asked about
// the latest instant that state covers inside the interval (so
// time-dependent predicates such as availability get their best chance).
//
// The checker replays events in commit order and judges a decision when
// it replays it, so every state in a timeline then was committed before
// the decision at to. A state received after to was delivered late by its
// watch (each kind has its own), not committed late: it counts as current
// at to. Receive times are not strictly monotonic across watches either,
// so a state is considered whatever its neighbours' times say.
func (tl timeline[T]) heldWithin(from, to time.Time, pred func(state T, at time.Time) bool) bool {
	held := false
	tl.spans(from, to, func(s sample[T], _, end time.Time) bool {
		held = pred(s.state, end)
		return !held
	})
	return held
}

// spans calls fn, in order, for each state current at some instant of
// [from, to], with the part of the interval it covers (start is clamped to
// at most end), until fn returns false.
func (tl timeline[T]) spans(from, to time.Time, fn func(s sample[T], start, end time.Time) bool) {
	for i, s := range tl {
		end := to
		if i+1 < len(tl) && tl[i+1].t.Before(to) {
			end = tl[i+1].t
		}
		if end.Before(from) {
			continue
		}
		start := s.t
		if start.Before(from) {
			start = from
		}
		if start.After(end) {
			start = end
		}
		if !fn(s, start, end) {
			return
		}
	}
}

// within returns the states current at some instant of [from, to].
func (tl timeline[T]) within(from, to time.Time) []T {
	var out []T
	tl.heldWithin(from, to, func(s T, _ time.Time) bool {
		out = append(out, s)
		return false
	})
	return out
}

// heldThroughout reports whether pred held at every instant of [from, to]:
// each state current at some instant of the interval is asked about the
// earliest instant it covers there (so that time-dependent predicates such
// as availability get no benefit of the doubt). A timeline with no state
// in the interval has nothing that held.
func (tl timeline[T]) heldThroughout(from, to time.Time, pred func(state T, at time.Time) bool) bool {
	covered, held := false, true
	tl.spans(from, to, func(s sample[T], start, _ time.Time) bool {
		covered = true
		held = pred(s.state, start)
		return held
	})
	return covered && held
}
