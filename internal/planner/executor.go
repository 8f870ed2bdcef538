package planner

// A rolling update is one round (gates.go) run by one executor: the
// executor of the set's update policy says which pods the round decides
// for and turns each admitted pod into actions; the round's gates say
// whether a pod may be disrupted now. The core loop (rollingUpdate,
// runRound) knows neither the policies nor the gates by name:
//
//   - recreate (executor_recreate.go): delete the pod; the replica pass
//     recreates it at the update revision (upstream's update, and the
//     extended kind's podUpdatePolicy Recreate);
//   - pods in place (executor_inplace.go): change the pod's spec and
//     metadata where the change allows, recreate it otherwise
//     (InPlaceIfPossible) or hold the round (InPlaceOnly);
//   - claims in place (executor_claims.go): patch the pod's claims to the
//     update revision's templates first, then update the pod itself with
//     the pod executor of its podUpdatePolicy.

// executor turns a rolling update's admitted pods into actions under one
// update policy.
type executor interface {
	// busy are the available pods that already hold one of the round's
	// slots before it starts (claims being resized).
	busy(p *planner) []slot
	// candidates are the pods the round decides for, in order; ok false
	// holds the round, the executor having said why.
	candidates(p *planner) (pending []slot, ok bool)
	// step decides for one candidate, asking the round's gates before it
	// disrupts the pod; stop ends the round there.
	step(p *planner, r *round, s slot) (actions []Action, stop bool)
}

// executorFor is the executor of the set's update policy.
func (p *planner) executorFor() executor {
	pods := p.podExecutor()
	if p.claimsInPlace() {
		return &claimsExecutor{pods: pods}
	}
	return pods
}

// podExecutor is the executor that brings a pod itself to the update
// revision: in place under an in-place podUpdatePolicy, by recreating it
// otherwise.
func (p *planner) podExecutor() executor {
	if p.podsInPlace() {
		return inPlaceExecutor{}
	}
	return &recreateExecutor{}
}

// runRound is the rolling update's round under x: the budget, the gates
// of the round, and x's candidates decided for in order until one stops
// the round. A round that does nothing and says nothing is explained by
// its gates.
func (p *planner) runRound(x executor) {
	maxUnavailable, unavailable, ok := p.rollingBudget()
	if !ok {
		return
	}
	r, open := p.newRound(outOfService, maxUnavailable, unavailable, x.busy(p))
	if !open {
		return
	}
	pending, ok := x.candidates(p)
	if !ok {
		return
	}
	var actions []Action
	waits := len(p.plan.Waits)
	for _, s := range pending {
		next, stop := x.step(p, r, s)
		actions = append(actions, next...)
		if stop {
			break
		}
	}
	p.addStep(StepRollingUpdate, actions)
	if len(actions) == 0 && len(p.plan.Waits) == waits {
		r.explain(p, pending)
	}
}
