package planner

import "fmt"

// budgetGate is rollingUpdate.maxUnavailable's gate: left is how many
// more available pods the round may take out of service, of max with
// unavailable pods unavailable when it started.
type budgetGate struct {
	left, max, unavailable int
}

func init() { registerGate(rankBudget, budgetGateOf) }

func budgetGateOf(_ *planner, r *round, _ disruption) gate { return r.budget }

func (b *budgetGate) admit(slot) bool { return b.left > 0 }

func (b *budgetGate) spend(slot) { b.left-- }

// explain says what a round the budget held waits for: the unavailable
// pods (budgetWaits).
func (b *budgetGate) explain(p *planner, _ *round, _ []slot) bool {
	p.budgetWaits(b.max, b.unavailable)
	return true
}

// refusal says why a disruption outside the rollout waits.
func (b *budgetGate) refusal(slot) string {
	return fmt.Sprintf("maxUnavailable %d is used up (counting the rollout's own disruptions), so it waits until a pod becomes available", b.max)
}
