package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Bounds of rollingUpdate.priority.
const (
	// MaxPriorityRules is the most rules rollingUpdate.priority holds.
	MaxPriorityRules = 16
	// MaxPriorityWeight bounds a rule's weight: it lies from
	// -MaxPriorityWeight to MaxPriorityWeight, so the sum of every rule's
	// weight always fits an int32.
	MaxPriorityWeight = 1000
)

// UpdatePriorityRule gives a weight to the pods its selector matches. A
// pod's weight is the sum of the weights of every rule that matches its
// labels, 0 when none does; the rolling update replaces pods of higher
// weight first, and pods of equal weight highest ordinal first, as
// apps/v1 does. A negative weight sends pods to the end: weight -100 on
// role=primary updates the primary last.
//
// +kubebuilder:validation:XValidation:rule="self.weight >= -1000 && self.weight <= 1000",message="spec.updateStrategy.rollingUpdate.priority[].weight must be from -1000 to 1000",fieldPath=`.weight`
// +kubebuilder:validation:XValidation:rule="(has(self.selector.matchLabels) && size(self.selector.matchLabels) > 0) || (has(self.selector.matchExpressions) && size(self.selector.matchExpressions) > 0)",message="spec.updateStrategy.rollingUpdate.priority[].selector must not be empty: an empty selector matches every pod and changes no order",fieldPath=`.selector`
// +kubebuilder:validation:XValidation:rule="!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, (e.operator == 'In' || e.operator == 'NotIn') ? has(e.values) && size(e.values) > 0 : (e.operator == 'Exists' || e.operator == 'DoesNotExist') && (!has(e.values) || size(e.values) == 0))",message="spec.updateStrategy.rollingUpdate.priority[].selector.matchExpressions must each have operator In or NotIn with values, or Exists or DoesNotExist without",fieldPath=`.selector.matchExpressions`
type UpdatePriorityRule struct {
	// Weight is added to the weight of every pod the selector matches,
	// from -1000 to 1000. Higher weights update first.
	Weight int32 `json:"weight"`
	// Selector is a label query over the set's pods, read from the live
	// pods: relabelling a pod moves it in the order at once. It must not
	// be empty.
	Selector metav1.LabelSelector `json:"selector"`
}
