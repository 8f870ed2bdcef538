package v1alpha1

// Rollout groups (spec.updateStrategy.rollingUpdate.rolloutGroup).
//
// Sets of one namespace that name the same group roll out one at a time,
// as a database or a log store run with one set per zone needs: a set
// holds its update (as if paused) until it has the group's turn, and it
// gets the turn only when every other set of the group is Available, does
// not hold the turn, and is not updating; of several sets waiting, the
// one whose name sorts first goes first.
//
// The turn is recorded on the set that has it, in its status, before any
// of its pods is touched: condition ConditionRolloutGroup True with
// reason RolloutGroupHolding. A set waiting for it has the condition False
// with reason RolloutGroupWaiting. The controller grants the turn under
// one lock per group, so two of its workers never grant it twice, and a
// new leader sees every turn granted before it from the sets' status.

// ConditionRolloutGroup is the condition type that records a set's turn
// in its rollout group.
const ConditionRolloutGroup = "RolloutGroup"

// Reasons of ConditionRolloutGroup.
const (
	// RolloutGroupHolding: the set has the group's turn and may update.
	RolloutGroupHolding = "RolloutGroupHolding"
	// RolloutGroupWaiting: the set has an update to roll and waits for
	// its turn.
	RolloutGroupWaiting = "RolloutGroupWaiting"
)
