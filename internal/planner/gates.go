package planner

import (
	"cmp"
	"slices"
)

// A rolling update decides for each candidate pod (in the order the
// sorters give: priority.go, roles.go) whether it may be disrupted now.
// Each feature that limits disruptions is a gate: admit says whether the
// pod may go and spends nothing; spend counts the disruption. A pod is
// disrupted only once every gate of the chain admits it, and only then
// does each gate spend, so a gate that refuses a pod leaves every other
// gate's count as it was. Disruptions that take a pod out of service
// (a delete, an update in place of its spec) go through every gate;
// a claim's resize, which leaves the pod Ready, takes a maxUnavailable
// slot and its domain's but no quorum member. Disruptions outside the
// rolling update (a requested delete, a move off a drained node) go
// through the same gates, in a round of their own (move).

// gate is one admission check of the rolling update.
type gate interface {
	// admit reports whether the pod in s may be disrupted now. A gate
	// that refuses may explain it in the plan's waits; it spends nothing.
	admit(s slot) bool
	// spend counts the disruption of the pod in s, which every gate of
	// the chain admitted.
	spend(s slot)
}

// admission is a chain of gates, asked in order.
type admission []gate

// admit asks every gate in order, stopping at the first that refuses;
// only when all admit does each spend.
func (a admission) admit(s slot) bool {
	for _, g := range a {
		if !g.admit(s) {
			return false
		}
	}
	for _, g := range a {
		g.spend(s)
	}
	return true
}

// disruption is what a rolling update asks the gates about.
type disruption uint8

const (
	// outOfService takes the pod out of service: a delete, or a change
	// of its spec in place.
	outOfService disruption = iota
	// resize patches the pod's claims: the pod stays in service.
	resize
	// move takes the pod out of service outside the rollout (a requested
	// delete, a move off a drained node): not a rollout step, so any
	// domain with room may move a pod, not only the rollout's active one.
	move
	disruptions // how many kinds of disruption there are
)

// gateOf builds a feature's gate for one round and disruption; nil when
// the feature is off for the set or does not limit that disruption.
type gateOf func(p *planner, r *round, d disruption) gate

// rollingGates are the gates of one rolling update's round, in the order
// they are asked (by rank). Each feature registers its own, from its own
// file (registerGate); the round does not know their names.
var rollingGates []ranked[gateOf]

// Ranks of the gates: capacity first, then whose turn it is, then the
// quorum, whose refusal explains itself.
const (
	rankBudget = 10 * (iota + 1) // budget.go
	rankDomain                   // topology.go
	rankQuorum                   // roles.go
)

// ranked is a registered gate or sorter with its rank.
type ranked[T any] struct {
	rank int
	of   T
}

// register adds of to list at its rank, keeping the list in rank order.
func register[T any](list *[]ranked[T], rank int, of T) {
	i, _ := slices.BinarySearchFunc(*list, rank, func(r ranked[T], rank int) int { return cmp.Compare(r.rank, rank) })
	*list = slices.Insert(*list, i, ranked[T]{rank, of})
}

// registerGate registers a feature's gate at rank.
func registerGate(rank int, of gateOf) { register(&rollingGates, rank, of) }

// opener is a gate that may hold a whole round before any pod is asked
// (a topology whose nodes could not be read); it reports why itself.
type opener interface {
	open(p *planner) bool
}

// refuser is a gate that can say in words why it refuses the pod in s,
// for a disruption outside the rollout to explain its wait; a gate that
// is not one explains its refusal itself.
type refuser interface {
	refusal(s slot) string
}

// turner is a gate that says whose turn it is: asked before anything
// else about a pod an update would take out of service, so a pod out of
// turn waits whatever else it would do (an InPlaceOnly pod that cannot be
// changed in place does not stop the round before its turn). It may
// explain the wait.
type turner interface {
	inTurn(p *planner, r *round, s slot) bool
}

// inTurn asks the round's turners about the pod in s.
func (r *round) inTurn(p *planner, s slot) bool {
	for _, g := range r.chains[outOfService] {
		if t, ok := g.(turner); ok && !t.inTurn(p, r, s) {
			return false
		}
	}
	return true
}

// explainer is a gate that can explain a round that did nothing and said
// nothing: it adds the plan's waits and reports true, or leaves it to the
// next gate.
type explainer interface {
	explain(p *planner, r *round, pending []slot) bool
}

// round is what one rolling update's gates share: the budget, and each
// feature's gate, built once for the chains of every disruption.
type round struct {
	budget *budgetGate
	shared map[string]gate
	// chains are the gates of each kind of disruption.
	chains [disruptions]admission
}

// once is the round's gate named key, built by build on first use (nil
// when the feature is off), so that every chain of the round counts with
// the same gate.
func (r *round) once(key string, build func() gate) gate {
	g, ok := r.shared[key]
	if !ok {
		if r.shared == nil {
			r.shared = map[string]gate{}
		}
		g = build()
		r.shared[key] = g
	}
	return g
}

// newRound starts a round of disruptions of kind d: maxUnavailable less
// the pods unavailable now; busy are available pods whose claims are
// being resized, which hold their slots in every gate of a resize. It
// reports false, with the gate's warning, when a gate of d's chain holds
// the round.
func (p *planner) newRound(d disruption, maxUnavailable, unavailable int, busy []slot) (*round, bool) {
	r := &round{budget: &budgetGate{left: maxUnavailable - unavailable, max: maxUnavailable, unavailable: unavailable}}
	for d := range disruptions {
		for _, e := range rollingGates {
			if g := e.of(p, r, d); g != nil {
				r.chains[d] = append(r.chains[d], g)
			}
		}
	}
	for _, s := range busy {
		for _, g := range r.chains[resize] {
			g.spend(s)
		}
	}
	for _, g := range r.chains[d] {
		if o, ok := g.(opener); ok && !o.open(p) {
			return nil, false
		}
	}
	return r, true
}

// admit asks this round's gates whether the pod in s may be disrupted
// (d), and spends their slots when they all admit it.
func (p *planner) admit(r *round, d disruption, s slot) bool {
	return r.chains[d].admit(s)
}

// admitOrSay asks this round's gates whether the pod in s may be moved
// (d is move) and spends their slots when they all admit it; otherwise
// it returns the refusing gate's words, or "" when that gate has
// explained the wait itself.
func (r *round) admitOrSay(s slot) (bool, string) {
	for _, g := range r.chains[move] {
		if !g.admit(s) {
			if w, ok := g.(refuser); ok {
				return false, w.refusal(s)
			}
			return false, ""
		}
	}
	for _, g := range r.chains[move] {
		g.spend(s)
	}
	return true, ""
}

// explain explains a round that did nothing and said nothing, pending
// being the pods it has left: the first gate, last to first, that can.
func (r *round) explain(p *planner, pending []slot) {
	gates := r.chains[outOfService]
	for i := len(gates) - 1; i >= 0; i-- {
		if e, ok := gates[i].(explainer); ok && e.explain(p, r, pending) {
			return
		}
	}
}
