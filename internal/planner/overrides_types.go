package planner

// OverrideCount is how many of the set's ordinals one override lists.
type OverrideCount struct {
	Name     string
	Replicas int32
}
