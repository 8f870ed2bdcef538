package planner

// Reload is what Extended says of configRevisions apply Reload.
type Reload struct {
	// Hook is lifecycle.reload; nil without one, and the label then moves
	// as soon as the data is written (for an application that watches its
	// files).
	Hook *Hook
}
