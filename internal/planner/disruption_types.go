package planner

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// DisruptionBudgets is how an extended set's pods are disrupted: with
// Respect, every pod the plan removes by choice (an update, a requested
// delete, a reserved ordinal) is evicted, so that the API server checks
// and debits the PodDisruptionBudgets that match it in the same step, and
// an eviction the API server refused (Observed.Refused) is a wait until
// its retry time.
type DisruptionBudgets struct {
	Respect bool
}

// EvictionRefusal is an eviction the API server refused.
type EvictionRefusal struct {
	// UID is the pod refused; a refusal of an earlier pod of the same name
	// does not hold. Empty matches any pod of the name (a refusal read
	// back from status.blockedBy, which names pods only).
	UID types.UID
	// Message is the API server's, with the budget's own words.
	Message string
	// Since is the first refusal of this pod; RetryAt is when the
	// eviction may be asked for again, zero when unknown (the plan then
	// waits on it, as `ordinal rollout plan` does without the
	// controller's memory).
	Since, RetryAt time.Time
}
