package planner

// MaxBatch caps how many pods one slow-start batch of a Burst step holds,
// upstream's MaxBatchSize.
const MaxBatch = 500

// addUnits adds a step made of per-pod units: one slice of actions for
// each pod the pass went through, in the pass's order, including pods
// with nothing to do. OrderedReady runs the units one after another;
// Parallel runs them in slow-start batches (1, 2, 4, … MaxBatch pods),
// counted over all the pass's pods as upstream counts them. A batch in
// which a unit fails for certain (it holds a Fail action) is the last
// one: upstream stops after it, so later units are left out of the plan.
func (p *planner) addUnits(name string, units [][]Action) {
	if p.monotonic {
		var actions []Action
		for _, u := range units {
			actions = append(actions, u...)
		}
		p.addStep(name, actions)
		return
	}
	p.addBurstUnits(name, units)
}

// addBurstUnits adds units as one Burst step whatever the pod management
// policy, in slow-start batches counted over every unit, empty ones too.
func (p *planner) addBurstUnits(name string, units [][]Action) {
	step := Step{Name: name, Burst: true}
	for start, size := 0, 1; start < len(units); start, size = start+size, min(2*size, MaxBatch) {
		end, n, failed := min(start+size, len(units)), 0, false
		for _, u := range units[start:end] {
			step.Actions = append(step.Actions, u...)
			n += len(u)
			failed = failed || fails(u)
		}
		step.Batches = append(step.Batches, n)
		if failed {
			break
		}
	}
	if len(step.Actions) > 0 {
		step.Batches = trimTrailingZeros(step.Batches)
		p.plan.Steps = append(p.plan.Steps, step)
	}
}

func trimTrailingZeros(batches []int) []int {
	for len(batches) > 0 && batches[len(batches)-1] == 0 {
		batches = batches[:len(batches)-1]
	}
	return batches
}

// fails reports whether a unit ends in a Fail action.
func fails(unit []Action) bool {
	for _, a := range unit {
		if a.Kind == Fail {
			return true
		}
	}
	return false
}

// addStep adds a sequential step.
func (p *planner) addStep(name string, actions []Action) {
	if len(actions) > 0 {
		p.plan.Steps = append(p.plan.Steps, Step{Name: name, Actions: actions})
	}
}
