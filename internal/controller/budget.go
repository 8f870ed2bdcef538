package controller

import (
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Events about the budget an extended set keeps (spec.disruptionBudget).
const (
	EventBudgetCreated = "SuccessfulCreateDisruptionBudget"
	EventBudgetDeleted = "SuccessfulDeleteDisruptionBudget"
)

// budgetsReady reports whether the budget cache may be read, starting it
// at the first call; true when the controller has none.
func (c *Controller) budgetsReady() bool {
	return c.budgetWatch == nil || c.budgetWatch.need()
}

// budgetFacts are the budgets of the set's namespace the planner looks at
// (osts.BudgetFacts); nil while the cache is not ready.
func (c *Controller) budgetFacts(t *target, pods []*corev1.Pod) *planner.Budgets {
	if c.budgets == nil || !c.budgetsReady() {
		return nil
	}
	list, err := c.budgets.PodDisruptionBudgets(t.view.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	return osts.BudgetFacts(t.extended, list, pods)
}

// reconcileBudget makes the budget the set keeps what the plan sized,
// before the plan's pods are touched, so that a shrink is in place before
// the disruption it counts: created when missing (never beside a budget
// of someone else's that selects the set's pods or takes its name),
// updated when it differs, deleted when spec.disruptionBudget is gone.
// A plan made without the budgets (seen, nil while their cache syncs)
// writes nothing: it could not tell whose budget is in the way.
func (c *Controller) reconcileBudget(ctx context.Context, t *target, seen *planner.Budgets, plan planner.Plan) error {
	if c.budgets == nil || plan.Extended == nil || seen == nil {
		return nil
	}
	want := plan.Extended.Budget
	have, err := c.budgets.PodDisruptionBudgets(t.view.Namespace).Get(t.view.Name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	owned := have != nil && osts.OwnedBy(have.OwnerReferences, t.view.UID)
	switch {
	case want == nil && owned:
		return c.deleteBudget(ctx, t, have)
	case want == nil, have != nil && !owned, have == nil && len(want.Foreign) > 0:
		return nil // nothing kept, or someone else's in the way: the condition says it
	case have == nil:
		return c.createBudget(ctx, t, want)
	}
	return c.updateBudget(ctx, t, have, want)
}

// budgetSpec is the spec of the budget the set keeps: its selector, the
// plan's minAvailable, and unhealthy pods always evictable (an eviction
// of a pod that is not Ready takes nothing the quorum counts).
func budgetSpec(t *target, want *planner.BudgetPlan) policyv1.PodDisruptionBudgetSpec {
	return policyv1.PodDisruptionBudgetSpec{
		MinAvailable:               ptr.To(intstr.FromInt32(want.MinAvailable)),
		Selector:                   t.view.Spec.Selector.DeepCopy(),
		UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
	}
}

func (c *Controller) createBudget(ctx context.Context, t *target, want *planner.BudgetPlan) error {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: want.Name, Namespace: t.view.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(t.view, t.kind().GroupVersionKind())}},
		Spec: budgetSpec(t, want),
	}
	_, err := c.client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).Create(ctx, pdb, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // the cache lags; the next sync sees whose it is
	}
	if err != nil {
		return fmt.Errorf("creating PodDisruptionBudget %s: %w", want.Name, err)
	}
	c.recorder.Eventf(t.view, corev1.EventTypeNormal, EventBudgetCreated, "Created PodDisruptionBudget %s: minAvailable %d", want.Name, want.MinAvailable)
	return nil
}

// updateBudget writes the spec the plan sized over the cached budget,
// with its resourceVersion: a conflict (an eviction the budget granted
// meanwhile, a status update) fails the sync, which plans again.
func (c *Controller) updateBudget(ctx context.Context, t *target, have *policyv1.PodDisruptionBudget, want *planner.BudgetPlan) error {
	spec := budgetSpec(t, want)
	if reflect.DeepEqual(have.Spec.MinAvailable, spec.MinAvailable) && reflect.DeepEqual(have.Spec.Selector, spec.Selector) &&
		have.Spec.MaxUnavailable == nil && reflect.DeepEqual(have.Spec.UnhealthyPodEvictionPolicy, spec.UnhealthyPodEvictionPolicy) {
		return nil
	}
	pdb := have.DeepCopy()
	pdb.Spec = spec
	if _, err := c.client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).Update(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating PodDisruptionBudget %s: %w", pdb.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Resized the set's PodDisruptionBudget", "statefulset", klog.KObj(t.view), "minAvailable", want.MinAvailable, "hidden", len(want.Hidden))
	return nil
}

// deleteBudget deletes the budget the set kept once spec.disruptionBudget
// is gone. Two signals, each read live right before: the budget is still
// the one this set owns (same UID, same resourceVersion as a
// precondition), and the set as stored no longer asks for it.
func (c *Controller) deleteBudget(ctx context.Context, t *target, cached *policyv1.PodDisruptionBudget) error {
	live, err := c.client.PolicyV1().PodDisruptionBudgets(cached.Namespace).Get(ctx, cached.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading PodDisruptionBudget %s: %w", cached.Name, err)
	}
	if !osts.OwnedBy(live.OwnerReferences, t.view.UID) {
		return nil
	}
	set, err := c.ext.client.StatefulSets(t.view.Namespace).Get(ctx, t.view.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading the set before deleting its PodDisruptionBudget: %w", err)
	}
	if set.UID != t.view.UID || set.Spec.DisruptionBudget != nil {
		return nil
	}
	pre := metav1.Preconditions{UID: &live.UID, ResourceVersion: &live.ResourceVersion}
	err = c.client.PolicyV1().PodDisruptionBudgets(live.Namespace).Delete(ctx, live.Name, metav1.DeleteOptions{Preconditions: &pre})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting PodDisruptionBudget %s: %w", live.Name, err)
	}
	c.recorder.Eventf(t.view, corev1.EventTypeNormal, EventBudgetDeleted, "Deleted PodDisruptionBudget %s: spec.disruptionBudget is unset", live.Name)
	return nil
}
