package planner

// GroupTurn is an extended set's place in its rollout group
// (rollingUpdate.rolloutGroup), as the adapter judged it from the
// group's sets (Observed.Group): the planner records it and explains
// it. A set without the turn has its update held as under a pause
// (paused), which pausedWords tells apart from the user's.
type GroupTurn struct {
	// Name is the group's name.
	Name string
	// Pending is true when the set has an update to roll.
	Pending bool
	// Holding is true when the set's status already records the turn:
	// its update runs. Claim is true when it takes the turn in this
	// sync: the status records it, and pods wait for the next sync.
	Holding, Claim bool
	// Wait says what the set waits for, when it has an update and no
	// turn, e.g. "osts/db-a is updating".
	Wait string
}
