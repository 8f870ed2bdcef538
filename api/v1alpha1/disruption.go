package v1alpha1

// Disruption budgets (spec.updateStrategy.rollingUpdate.respectDisruptionBudgets).
//
// With the field true (the default of a RollingUpdate set) the controller
// removes a running pod it chooses to disrupt through the pod's eviction
// subresource (policy/v1 Eviction) instead of deleting it, so that the API
// server checks and debits every PodDisruptionBudget that matches the pod
// in the same step, atomically with the removal:
//   - a rolling update's delete of an old-revision pod, self-healing's
//     replacement of a broken one, and an in-place update that falls back
//     to recreating its pod;
//   - a pod labelled DeleteRequestedLabel;
//   - a pod removed because its ordinal was reserved (spec.reserveOrdinals):
//     scale-in of a chosen pod.
//
// A plain scale-down (pods above the new spec.replicas) and the removal of
// a Failed or Succeeded pod are not disruptions a budget is about, and are
// deleted as apps/v1 deletes them. An update in place restarts containers
// without removing the pod, which the Eviction API cannot express; it is
// not checked against budgets. Types OnDelete and Recreate have no
// rollingUpdate block and never evict.
//
// A refusal (429 TooManyRequests, or a pod matched by more than one
// budget) is a wait: the pod is listed in status.blockedBy with reason
// DisruptionBudgetReason and `ordinal rollout plan` explains it; the
// controller asks again after a backoff that doubles from one second to
// at most DisruptionRetryMaxSeconds, never on every event.

// DisruptionBudgetReason is the status.blockedBy reason of a pod whose
// eviction a PodDisruptionBudget refused.
const DisruptionBudgetReason = "DisruptionBudget"

// DisruptionRetryMaxSeconds is the longest the controller waits before it
// asks again to evict a pod whose eviction was refused.
const DisruptionRetryMaxSeconds = 30

// RespectsDisruptionBudgets reports whether a set with this update
// strategy evicts the pods it disrupts: only a RollingUpdate set, unless
// its rollingUpdate.respectDisruptionBudgets is false.
func (s StatefulSetUpdateStrategy) RespectsDisruptionBudgets() bool {
	if s.Type != "" && s.Type != RollingUpdateStatefulSetStrategyType {
		return false
	}
	return s.RollingUpdate == nil || s.RollingUpdate.RespectDisruptionBudgets == nil || *s.RollingUpdate.RespectDisruptionBudgets
}
