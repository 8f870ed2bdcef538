package v1alpha1

import "k8s.io/apimachinery/pkg/util/intstr"

// DisruptionBudget is spec.disruptionBudget: the set keeps one
// PodDisruptionBudget of its own (policy/v1), named after it, owned by it
// and selecting exactly its pods, so that the evictions of drains,
// autoscalers and people, and the set's own evictions
// (respectDisruptionBudgets), share one allowance sized from the set's
// quorum (docs/disruption.md):
//
//   - the allowance is what the quorum allows (a majority of the quorum's
//     members stays Available; one at a time for a quorum of one or two),
//     or maxUnavailable when that is smaller; without a quorum role it is
//     maxUnavailable, 1 when unset;
//   - it shrinks by every pod the set counts down that the budget cannot
//     see down (Ready, yet not Available for minReadySeconds, without
//     its role after a restart, out of service for an update in place, on
//     a node that stopped answering, or handing its exclusive role over),
//     so that outside evictions and the set's own disruptions together
//     never take more than the quorum allows.
//
// The controller writes the budget's spec (minAvailable, counted in
// pods) and never the set's. It does not create its budget while another
// PodDisruptionBudget selects the set's pods: the API server refuses every
// eviction of a pod two budgets select. Removing the field deletes the
// budget.
type DisruptionBudget struct {
	// MaxUnavailable is the most of the set's pods evictions may take
	// down at once, counting the pods already down: a number, or a
	// percentage of replicas (rounded down, at least 1). Never more than
	// the quorum allows; unset, what the quorum allows (1 without a
	// quorum role).
	//
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^0*([1-9][0-9]?|100)%$')",message="spec.disruptionBudget.maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// Condition type and reasons of spec.disruptionBudget and of the budgets
// that select a set's pods.
const (
	// ConditionDisruptionBudget says whether the set's pods are covered
	// by budgets an eviction can use: True (BudgetManaged) while the set
	// keeps its own budget and no other selects its pods; False
	// (ForeignBudget) while another budget keeps the set from creating its
	// own, or (MultipleBudgets) while two or more budgets select one of
	// its pods, so that every eviction of that pod fails. Absent on a set
	// without spec.disruptionBudget whose pods no two budgets select.
	ConditionDisruptionBudget = "DisruptionBudget"
	ReasonBudgetManaged       = "BudgetManaged"
	ReasonForeignBudget       = "ForeignBudget"
	ReasonMultipleBudgets     = "MultipleBudgets"
	// MultipleBudgetsReason is the status.blockedBy reason of a pod whose
	// eviction fails because two or more budgets select it.
	MultipleBudgetsReason = "MultipleDisruptionBudgets"
)
