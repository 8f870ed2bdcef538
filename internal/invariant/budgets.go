package invariant

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
)

// applyBudget keeps the latest version of each PodDisruptionBudget.
func (r *replay) applyBudget(ev Event, pdb *policyv1.PodDisruptionBudget) {
	k := key(pdb.Namespace, pdb.Name)
	if ev.Type == watch.Deleted {
		delete(r.budgets, k)
		return
	}
	r.budgets[k] = pdb
}

// respectsBudgets reports whether version v evicts the pods it disrupts:
// an extended set of type RollingUpdate whose
// rollingUpdate.respectDisruptionBudgets is not false.
func (st *setTrack) respectsBudgets(v *appsv1.StatefulSet) bool {
	x := st.extOf(v)
	if x == nil || !rollingUpdate(v) {
		return false
	}
	ru := x.Spec.UpdateStrategy.RollingUpdate
	return ru == nil || ru.RespectDisruptionBudgets == nil || *ru.RespectDisruptionBudgets
}

// judgeBudgets checks RuleDisruptionBudget for a controller deletion of
// a pod of an extended set that respects budgets in every version of the
// window, when every version has the pod in range or reserves its
// ordinal (a pod above the range is a plain scale-down, which budgets do
// not govern).
func (r *replay) judgeBudgets(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, before, pod *corev1.Pod) {
	if len(r.budgets) == 0 || !st.extended() || !allSpecs(specs, st.respectsBudgets) {
		return
	}
	chosen := allSpecs(specs, func(s *appsv1.StatefulSet) bool { return r.inRange(s, ord) || reserves(r.reserved[s], ord) })
	if before == nil {
		before = pod
	}
	if !chosen || !budgetHealthy(before) {
		return
	}
	for _, pdb := range r.budgets {
		min, ok := minAvailable(pdb)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if !ok || err != nil || pdb.Namespace != pod.Namespace || !sel.Matches(labels.Set(before.Labels)) {
			continue
		}
		if others := r.budgetHealthy(pdb.Namespace, sel, before.Name); others < min {
			r.violate(RuleDisruptionBudget, key(pod.Namespace, pod.Name), ev,
				"deleted %s, Ready, while only %d other pods of PodDisruptionBudget %s were Ready (minAvailable %d)", pod.Name, others, pdb.Name, min)
		}
	}
}

// minAvailable is the budget's minAvailable when it is a number; a
// percentage or maxUnavailable depends on the pods' controllers' scale,
// which the rule does not re-derive.
func minAvailable(pdb *policyv1.PodDisruptionBudget) (int, bool) {
	m := pdb.Spec.MinAvailable
	if m == nil || m.Type != intstr.Int {
		return 0, false
	}
	return m.IntValue(), true
}

// budgetHealthy counts the live pods of namespace ns other than skip
// that sel matches and that a budget counts healthy.
func (r *replay) budgetHealthy(ns string, sel labels.Selector, skip string) int {
	n := 0
	for _, pt := range r.pods {
		p := pt.live
		if p != nil && p.Namespace == ns && p.Name != skip && sel.Matches(labels.Set(p.Labels)) && budgetHealthy(p) {
			n++
		}
	}
	return n
}

// budgetHealthy is a budget's own reading of a pod: not terminating,
// with condition Ready True.
func budgetHealthy(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
