package controller

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// DefaultStatusHold is how long, by default, a count-only status change
// that no observer acts on (pods created, or counted at a revision; no
// count going down and no pod turning Ready or Available) may wait while
// the client's requests queue for rate-limiter tokens
// (Options.StatusHold). Under that load every status write delays
// a pod write by one token: in many-sets 100 × 5 at QPS 20 holding for
// 30 s instead of 3 s took 1093 status writes down to 578 and the run
// from 232.7 s to 206.4 s (figures from before pods turning Ready were
// taken out of the hold). Status that says a set is complete or at rest,
// that counts fewer pods than the last written, a new
// observedGeneration, revision or collision count is written at once, and
// so is every change while the client has tokens to spare; under load a
// pod turning Ready waits at most statusDebounce. A held change goes out
// once the client has been quiet for statusQuiet (statuswake.go), if that
// comes before the hold ends.
const DefaultStatusHold = 30 * time.Second

// statusDebounce bounds how long a count-only status change of a set
// that has not reached its target waits while the client's requests
// queue for tokens, so that a burst of pod changes (pods turning Ready one
// after another) becomes one write. It is also the longest a pod turning
// Ready or Available waits to be counted.
const statusDebounce = time.Second

// statusDeferrals remembers, in a memory of its own, since when each
// set's status change has been held back and the latest one held.
type statusDeferrals struct {
	held *perSet[deferral]
}

// deferral is one set's status change held back: the latest one held
// (nil when nothing is held) and since when the holding began; forLoad
// marks a change held because the client was busy, to be looked at again
// once the client is quiet (quietWatch). One memory holds all three, so
// that a written status (done) ends them at once.
type deferral struct {
	held    *appsv1.StatefulSetStatus
	since   time.Time
	forLoad bool
}

// pending returns the status held back for a set whose spec is at
// generation gen. The next sync plans from it as if it had been written:
// the planner reads status.currentReplicas (upstream's rule for which
// revision a recreated pod gets), and planning from an older value would
// recreate a pod at the old revision that the rolling update then deletes
// again, over and over.
func (d *statusDeferrals) pending(key string, gen int64) (appsv1.StatefulSetStatus, bool) {
	var held *appsv1.StatefulSetStatus
	d.held.read(key, func(st *deferral) { held = st.held })
	if held == nil || held.ObservedGeneration != gen {
		return appsv1.StatefulSetStatus{}, false
	}
	return *held, true
}

// hold reports whether the change from stored to want may wait, and for
// how long at most: only the replica counters differ (observedGeneration,
// revisions and the collision count are written at once, as is a new
// set's first status), and the set's status has been held back for less
// than bound.
func (d *statusDeferrals) hold(key string, stored, want appsv1.StatefulSetStatus, now time.Time, bound time.Duration) (time.Duration, bool) {
	if bound <= 0 || statusEqual(stored, want) || !countsOnly(stored, want) {
		return 0, false
	}
	left, held := time.Duration(0), false
	d.held.update(key, func(st *deferral) {
		if st.held == nil {
			st.held, st.since = &want, now
			left, held = bound, true
			return
		}
		if left = bound - now.Sub(st.since); left > 0 {
			st.held, held = &want, true
		}
	})
	if !held {
		return 0, false
	}
	return left, true
}

// statusBound is how long the change from stored (the status observers
// were last told) to want may wait. While the client has tokens to spare,
// not at all: a status write then delays no pod write, and upstream
// writes every change its sync finds (syncs of a set whose pods change
// faster than a sync takes are paced, pacing.go, which bounds these
// writes too). Nor when it tells observers less than stored did (fewer:
// a short dip would otherwise pass unseen), says the set is complete, or
// at rest (idle: the plan has nothing to do, and every wanted replica
// exists, is Ready and Available, as in a roll-out held at its partition,
// where no later change would carry this one), whatever the load. While
// the client's requests queue for tokens (busy), up to hold (never less
// than statusDebounce) when no pod turned Ready or Available (readier):
// pods created or counted at a revision are no news an observer acts on;
// else up to statusDebounce.
func statusBound(busy bool, hold time.Duration, stored, want appsv1.StatefulSetStatus, replicas int32, idle bool) time.Duration {
	switch {
	case !busy, fewer(stored, want), complete(want, replicas), idle && available(want, replicas):
		return 0
	case !readier(stored, want):
		return max(hold, statusDebounce)
	}
	return statusDebounce
}

// fewer reports whether want counts fewer pods than stored in any of the
// replica counters: fewer exist, are Ready, Available, or at the current
// or update revision than observers were told.
func fewer(stored, want appsv1.StatefulSetStatus) bool {
	return want.Replicas < stored.Replicas || want.ReadyReplicas < stored.ReadyReplicas ||
		want.AvailableReplicas < stored.AvailableReplicas || want.CurrentReplicas < stored.CurrentReplicas ||
		want.UpdatedReplicas < stored.UpdatedReplicas
}

// readier reports whether want counts more pods Ready or Available than
// stored.
func readier(stored, want appsv1.StatefulSetStatus) bool {
	return want.ReadyReplicas > stored.ReadyReplicas || want.AvailableReplicas > stored.AvailableReplicas
}

// complete reports whether a status describes a finished set: every wanted
// replica exists, is Ready, Available and updated, and the update revision
// is current.
func complete(st appsv1.StatefulSetStatus, replicas int32) bool {
	return st.Replicas == replicas && st.ReadyReplicas == replicas && st.AvailableReplicas == replicas &&
		st.UpdatedReplicas == replicas && st.CurrentReplicas == replicas && st.CurrentRevision == st.UpdateRevision
}

// available reports whether a status counts every wanted replica, and each
// Ready and Available.
func available(st appsv1.StatefulSetStatus, replicas int32) bool {
	return st.Replicas == replicas && st.ReadyReplicas == replicas && st.AvailableReplicas == replicas
}

// idle reports whether a plan has nothing to do.
func idle(plan planner.Plan) bool {
	for _, s := range plan.Steps {
		if len(s.Actions) > 0 {
			return false
		}
	}
	return true
}

// done forgets a set's deferral: its status was written.
func (d *statusDeferrals) done(key string) {
	d.held.read(key, func(st *deferral) { *st = deferral{} })
}

// countsOnly reports whether a and b differ at most in the replica
// counters (a changed condition is written at once).
func countsOnly(a, b appsv1.StatefulSetStatus) bool {
	return len(changedConditions(a.Conditions, b.Conditions)) == 0 &&
		a.ObservedGeneration != 0 && a.ObservedGeneration == b.ObservedGeneration &&
		a.CurrentRevision == b.CurrentRevision && a.UpdateRevision == b.UpdateRevision &&
		int32Value(a.CollisionCount) == int32Value(b.CollisionCount)
}
