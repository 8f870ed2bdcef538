package forecast

import "time"

// Moment is what a rehearsal knows of a rollout at one moment, to judge
// whether it has ended.
type Moment struct {
	// Since is the time since the change; Moved the time since the change
	// at which a pod last changed revision, readiness or existence.
	Since, Moved time.Duration
	// Observed says the controller has seen the change (the status's
	// observedGeneration reached the change's generation).
	Observed bool
	// From is the revision every pod ran at the change; To the update
	// revision the controller made of the change ("" until it made one).
	From, To string
	// Settled is the revision every wanted pod runs, Ready and Available,
	// with no other pod left; "" while there is none.
	Settled string
	// RolledBack says the controller rolled back on its own: a RolledBack
	// event, or its update revision back at From after To.
	RolledBack bool
	// Paused says the controller paused the rollout on its own.
	Paused bool
}

// Limits say how long a rehearsal waits.
type Limits struct {
	// Stuck is how long nothing may move before the rollout counts as
	// stuck; it should outlast the extended kind's progress deadline, so
	// that a rollback is seen.
	Stuck time.Duration
	// Timeout ends a run that still moves.
	Timeout time.Duration
	// Rest is how long a paused rollout must stay still to count as
	// paused.
	Rest time.Duration
}

// Judge says whether the rollout has ended at m, and how: completed at the
// new revision, rolled back to the old one, paused, stuck, or out of
// time; ok is false while it goes on.
func Judge(m Moment, l Limits) (Outcome, bool) {
	still := m.Since - m.Moved
	switch {
	case m.Observed && m.To == m.From && m.Settled == m.From:
		return NoChange, true
	case m.Observed && m.To != "" && m.To != m.From && m.Settled == m.To:
		return Completed, true
	case m.RolledBack && m.Settled == m.From:
		return RolledBack, true
	case m.Paused && still >= l.Rest:
		return Paused, true
	case still >= l.Stuck:
		return Stuck, true
	case m.Since >= l.Timeout:
		return TimedOut, true
	}
	return "", false
}
