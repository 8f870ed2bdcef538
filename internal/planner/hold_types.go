package planner

import (
	"time"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Hold is status.hold as the planner reads and writes it.
type Hold struct {
	ID             string
	Action         v1alpha1.HoldAction
	FailedRevision string
	Revision       string
	Reason         string
	Time           time.Time
}

// HoldEvent is an event the plan asks for about a hold it records or
// ends, to be recorded once the status that says so is written.
type HoldEvent struct {
	// Warning is the event's type: Warning for a new hold, Normal for an
	// ended one.
	Warning bool
	// Reason is RolledBack or RolloutPaused for a new hold,
	// RolloutHoldEnded for an ended one.
	Reason  string
	Message string
}
