package planner

// Member is one member of an extended set, as status.members lists it.
type Member struct {
	Ordinal      int32
	Pod          string
	State        string
	Revision     string
	Ready        bool
	UpToDate     bool
	ClaimsInStep bool
	Hooks        []MemberHook
	// Role is the pod's value of spec.roles' label key; empty without
	// spec.roles or without the label.
	Role string
}

// MemberHook is a lifecycle hook's label on a member's pod.
type MemberHook struct {
	Name, State string
}
