package planner_test

import (
	"sync"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// observations hold, for each Extended a test builds, what its plan
// observes: the tests' options each change one *planner.Extended (a
// topology with its nodes, a policy with the nodes it judges), and
// compute gives the planner the spec and its observations apart, as the
// controller does.
var observations sync.Map // *planner.Extended → *planner.Observed

// observedOf is what plans of e observe.
func observedOf(e *planner.Extended) *planner.Observed {
	o, _ := observations.LoadOrStore(e, &planner.Observed{})
	return o.(*planner.Observed)
}

// compute is planner.Compute with in.Extended's observations.
func compute(in planner.Input) planner.Plan {
	if in.Extended != nil {
		if o, ok := observations.Load(in.Extended); ok {
			in.Observed = *o.(*planner.Observed)
		}
	}
	return planner.Compute(in)
}
