package osts

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// BudgetFacts are the budgets of pdbs (the set's namespace's) the planner
// looks at for s: its own (owned by it), those that select one of its
// pods or its template's labels, and one that takes its own budget's
// name. The controller and `ordinal rollout plan` both read them so.
func BudgetFacts(s *v1alpha1.StatefulSet, pdbs []*policyv1.PodDisruptionBudget, pods []*corev1.Pod) *planner.Budgets {
	out := &planner.Budgets{}
	for _, pdb := range pdbs {
		f := planner.BudgetFact{Name: pdb.Name, Owned: OwnedBy(pdb.OwnerReferences, s.UID)}
		sel := BudgetSelector(pdb)
		f.Template = sel.Matches(labels.Set(s.Spec.Template.Labels))
		for _, p := range pods {
			if sel.Matches(labels.Set(p.Labels)) {
				f.Pods = append(f.Pods, p.Name)
			}
		}
		if f.Owned || f.Template || len(f.Pods) > 0 || pdb.Name == s.Name {
			out.All = append(out.All, f)
		}
	}
	return out
}

// BudgetSelector is a budget's selector as policy/v1 reads it: nil
// selects nothing, an empty one every pod of the namespace.
func BudgetSelector(pdb *policyv1.PodDisruptionBudget) labels.Selector {
	if pdb.Spec.Selector == nil {
		return labels.Nothing()
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

// OwnedBy reports whether refs' controller reference is uid.
func OwnedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller && r.UID == uid {
			return true
		}
	}
	return false
}
