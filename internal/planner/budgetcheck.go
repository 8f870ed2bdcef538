package planner

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Condition and reasons of the budgets that select a set's pods
// (v1alpha1.ConditionDisruptionBudget), and the warnings that report a
// budget in the way.
const (
	ConditionDisruptionBudget = v1alpha1.ConditionDisruptionBudget
	ReasonBudgetManaged       = v1alpha1.ReasonBudgetManaged
	ReasonForeignBudget       = v1alpha1.ReasonForeignBudget
	ReasonMultipleBudgets     = v1alpha1.ReasonMultipleBudgets
	// ReasonMultipleBudgetsBlocked is the status.blockedBy reason of a
	// pod whose eviction fails because two or more budgets select it.
	ReasonMultipleBudgetsBlocked = v1alpha1.MultipleBudgetsReason
)

// budgetCondition sets the DisruptionBudget condition from the observed
// budgets, and warns about a budget in the way: two or more budgets that
// select one pod (every eviction of it fails), or, under
// spec.disruptionBudget, another budget that keeps the set from creating
// its own. Without spec.disruptionBudget and with no such pod the
// condition is removed; with budgets not read it stays as it was.
func (p *planner) budgetCondition(conds *[]metav1.Condition, b *BudgetPlan, set func(typ string, status metav1.ConditionStatus, reason, msg string)) {
	if p.in.Observed.Budgets == nil {
		return
	}
	object := "StatefulSet/" + p.set.Name
	if doubly := p.doublySelected(); len(doubly) > 0 {
		msg := fmt.Sprintf("pods are selected by more than one PodDisruptionBudget: %s; the API server refuses every eviction of such a pod (drains, and the set's own evictions, wait for ever): %s",
			limitList(doubly, 5), p.multipleHint(b != nil))
		p.warn(ReasonMultipleBudgets, object, msg)
		set(ConditionDisruptionBudget, metav1.ConditionFalse, ReasonMultipleBudgets, msg)
		return
	}
	switch {
	case b == nil:
		removeCondition(conds, ConditionDisruptionBudget)
	case len(b.Foreign) > 0 && !b.Exists:
		msg := fmt.Sprintf("PodDisruptionBudget %s selects the set's pods (or takes the name %s), so the set does not create its own beside it: two budgets on one pod make every eviction of it fail. Delete PodDisruptionBudget %s to let the set keep its own (kubectl -n %s delete pdb %s), or remove spec.disruptionBudget to keep yours",
			strings.Join(b.Foreign, ", "), b.Name, strings.Join(b.Foreign, ", "), p.set.Namespace, b.Foreign[0])
		p.warn(ReasonForeignBudget, object, msg)
		set(ConditionDisruptionBudget, metav1.ConditionFalse, ReasonForeignBudget, msg)
	default:
		set(ConditionDisruptionBudget, metav1.ConditionTrue, ReasonBudgetManaged, b.Words())
	}
}

// multipleHint says what to do about pods two budgets select.
func (p *planner) multipleHint(managed bool) string {
	if managed {
		return fmt.Sprintf("delete the other budgets (kubectl -n %s get pdb), or remove spec.disruptionBudget and keep one of yours", p.set.Namespace)
	}
	return fmt.Sprintf("keep one budget per pod (kubectl -n %s get pdb), or delete them all and set spec.disruptionBudget so that the set keeps one sized from its quorum", p.set.Namespace)
}

// Words describe the set's own budget as the plan sized it, for its
// condition and `ordinal rollout plan`.
func (b *BudgetPlan) Words() string {
	msg := fmt.Sprintf("PodDisruptionBudget %s keeps minAvailable %d of %d pods: evictions may take %d at most (%s)",
		b.Name, b.MinAvailable, b.Counted, b.Allowance, b.Why)
	if len(b.Hidden) > 0 {
		msg += fmt.Sprintf(", %d less for the pods the set counts down while the budget counts them healthy: %s", len(b.Hidden), limitList(b.Hidden, 5))
	}
	return msg + "; the pods already down count against it"
}

// limitList joins at most n items, counting the others.
func limitList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
