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
	placed := make([]placedUnit, 0, len(units))
	for i, u := range units {
		if len(u) > 0 {
			placed = append(placed, placedUnit{at: int64(i), actions: u})
		}
	}
	p.addPlacedUnits(name, placed)
}

// placedUnit is one pod's actions at the pod's place among all the pods a
// pass goes through.
type placedUnit struct {
	at      int64
	actions []Action
}

// addPlacedUnits adds a Burst step of the units of a pass that has
// nothing to do for most of its pods: only the units with actions are
// given, each at its place (ascending), and the slow-start batches are
// counted over every place, as addBurstUnits counts them, without a unit
// for each place. Batches are listed up to the last with actions, empty
// ones as zero: one int for every MaxBatch places below the last unit,
// the only part of the step that follows the places rather than the
// units (16 KiB for a unit at place 1000000).
func (p *planner) addPlacedUnits(name string, units []placedUnit) {
	if len(units) == 0 {
		return
	}
	step := Step{Name: name, Burst: true, Batches: make([]int, 0, batchAt(units[len(units)-1].at)+1)}
	last := -1 // the batch that holds a failing unit
	for _, u := range units {
		b := batchAt(u.at)
		if len(u.actions) == 0 || (last >= 0 && b > last) {
			continue
		}
		for len(step.Batches) <= b {
			step.Batches = append(step.Batches, 0)
		}
		step.Actions = append(step.Actions, u.actions...)
		step.Batches[b] += len(u.actions)
		if fails(u.actions) {
			last = b
		}
	}
	if len(step.Actions) > 0 {
		p.plan.Steps = append(p.plan.Steps, step)
	}
}

// batchAt is the slow-start batch, from 0, of the unit at place i:
// batches of 1, 2, 4, … pods up to MaxBatch, then MaxBatch each.
func batchAt(i int64) int {
	b, start, size := 0, int64(0), int64(1)
	for size < MaxBatch && i >= start+size {
		start, size, b = start+size, min(2*size, MaxBatch), b+1
	}
	return b + int((i-start)/size)
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
