package osts

import (
	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// budgets is respectDisruptionBudgets for the planner, with the refused
// evictions status.blockedBy lists: without the controller's memory of
// them (`ordinal rollout plan`), a pod listed there is still waited on.
// The controller replaces Refused with what it remembers, which also
// knows when each eviction is due again.
func budgets(s *v1alpha1.StatefulSet) planner.DisruptionBudgets {
	b := planner.DisruptionBudgets{Respect: s.Spec.UpdateStrategy.RespectsDisruptionBudgets()}
	for _, p := range s.Status.BlockedBy {
		if p.Reason != v1alpha1.DisruptionBudgetReason {
			continue
		}
		if b.Refused == nil {
			b.Refused = map[string]planner.EvictionRefusal{}
		}
		b.Refused[p.Pod] = planner.EvictionRefusal{Message: p.Message, Since: p.Since.Time}
	}
	return b
}
