package setops

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespaceBudgets lists the PodDisruptionBudgets of an extended set's
// namespace, for the plan's word on the budget the set keeps and on
// budgets that select its pods; nil for apps/v1 and when they cannot be
// listed.
func namespaceBudgets(ctx context.Context, t *Target) []*policyv1.PodDisruptionBudget {
	if t.Extended == nil {
		return nil
	}
	list, err := t.Client.PolicyV1().PodDisruptionBudgets(t.Extended.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := make([]*policyv1.PodDisruptionBudget, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}
