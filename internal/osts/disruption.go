package osts

import (
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// FieldDisruptionBudgetMaxUnavailable is the path of
// spec.disruptionBudget.maxUnavailable.
const FieldDisruptionBudgetMaxUnavailable = "spec.disruptionBudget.maxUnavailable"

// managedBudget is spec.disruptionBudget for the planner, its
// maxUnavailable scaled to replicas; nil when unset. A value that cannot
// be read is reported in e.Invalid and counts as unset: the quorum's
// allowance, never more.
func managedBudget(e *planner.Extended, s *v1alpha1.StatefulSet) *planner.ManagedBudget {
	d := s.Spec.DisruptionBudget
	if d == nil {
		return nil
	}
	out := &planner.ManagedBudget{Name: s.Name}
	if d.MaxUnavailable == nil {
		return out
	}
	n, err := planner.ScaleMaxUnavailable(d.MaxUnavailable, ptr.Deref(s.Spec.Replicas, 1))
	if err != nil {
		e.Invalid = append(e.Invalid, planner.SpecError{Field: FieldDisruptionBudgetMaxUnavailable, Reason: planner.ReasonInvalidMaxUnavailable,
			Message: err.Error() + "; the budget allows what the quorum allows (1 without a quorum role)"})
		return out
	}
	out.MaxUnavailable = n
	return out
}

// budgets is respectDisruptionBudgets for the planner.
func budgets(s *v1alpha1.StatefulSet) planner.DisruptionBudgets {
	return planner.DisruptionBudgets{Respect: s.Spec.UpdateStrategy.RespectsDisruptionBudgets()}
}

// Observe is what a plan of s observes from the set's own status: the
// refused evictions status.blockedBy lists, so that without the
// controller's memory of them (`ordinal rollout plan`) a pod listed there
// is still waited on. The controller replaces Refused with what it
// remembers, which also knows when each eviction is due again; the other
// observations are added by whoever reads the cluster (Domains,
// StorageClasses, JudgeNodes, GroupTurn).
func Observe(s *v1alpha1.StatefulSet) planner.Observed {
	var o planner.Observed
	for _, p := range s.Status.BlockedBy {
		if p.Reason != v1alpha1.DisruptionBudgetReason && p.Reason != v1alpha1.MultipleBudgetsReason {
			continue
		}
		if o.Refused == nil {
			o.Refused = map[string]planner.EvictionRefusal{}
		}
		o.Refused[p.Pod] = planner.EvictionRefusal{Message: p.Message, Since: p.Since.Time}
	}
	return o
}
