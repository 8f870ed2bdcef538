package controller

import (
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/osts"
)

// newBudgetFactory is the informer factory of the PodDisruptionBudget
// cache of the extended kind: the set's own budget (budget.go), the
// budgets that select its pods, and the budget changes that may lift a
// refused eviction. It starts at the first extended set's sync (a
// nodeWatch), so a controller of apps/v1 sets alone never lists a budget.
func newBudgetFactory(client kubernetes.Interface, namespace string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace),
		informers.WithTransform(func(obj any) (any, error) {
			if acc, err := meta.Accessor(obj); err == nil {
				acc.SetManagedFields(nil)
			}
			return obj, nil
		}))
}

// watchBudgets registers the budget cache on factory. A budget that is
// created, deleted or changes its selector or owner wakes the extended
// sets whose pods it may select (their DisruptionBudget condition, and
// the budget a set keeps); one whose status allows more disruptions than
// before makes the refused evictions of the pods it selects due at once
// (budgetFreed).
func (c *Controller) watchBudgets(factory informers.SharedInformerFactory) (*nodeWatch, error) {
	inf := factory.Policy().V1().PodDisruptionBudgets()
	wake := func(obj any) {
		if pdb, ok := unwrap[*policyv1.PodDisruptionBudget](obj); ok {
			c.wakeBudgetSets(pdb)
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: wake, DeleteFunc: wake,
		UpdateFunc: func(old, cur any) {
			o, ok := unwrap[*policyv1.PodDisruptionBudget](old)
			n, ok2 := unwrap[*policyv1.PodDisruptionBudget](cur)
			if !ok || !ok2 {
				return
			}
			if o.Generation != n.Generation || !equalOwners(o.OwnerReferences, n.OwnerReferences) {
				c.wakeBudgetSets(n)
			}
			if budgetFreed(o, n) {
				c.retryRefusedUnder(n)
			}
		},
	}); err != nil {
		return nil, err
	}
	c.budgets = inf.Lister()
	return &nodeWatch{factory: factory, wanted: make(chan struct{}), synced: []cache.InformerSynced{inf.Informer().HasSynced}}, nil
}

// budgetFreed reports whether a budget's status now allows a disruption
// it may not have allowed when an eviction was refused: more
// disruptions allowed than before, or the same number once the budget's
// status caught up with its spec (the API server refuses every eviction
// while the status is behind).
func budgetFreed(old, cur *policyv1.PodDisruptionBudget) bool {
	if cur.Status.DisruptionsAllowed <= 0 || cur.Status.ObservedGeneration < cur.Generation {
		return false
	}
	return cur.Status.DisruptionsAllowed > old.Status.DisruptionsAllowed || old.Status.ObservedGeneration < old.Generation
}

// wakeBudgetSets enqueues the extended sets of the budget's namespace
// that own it or whose pod template it selects.
func (c *Controller) wakeBudgetSets(pdb *policyv1.PodDisruptionBudget) {
	if c.ext == nil {
		return
	}
	sets, err := c.ext.lister.List(pdb.Namespace, labels.Everything())
	if err != nil {
		return
	}
	sel := osts.BudgetSelector(pdb)
	for _, s := range sets {
		if osts.OwnedBy(pdb.OwnerReferences, s.UID) || pdb.Name == s.Name || sel.Matches(labels.Set(s.Spec.Template.Labels)) {
			c.enqueueExtended(s)
		}
	}
}

// retryRefusedUnder makes every refused eviction of a pod the budget
// selects due now, and wakes its set: the budget that refused it may
// allow it now, and the backoff (1-30 s) would otherwise be waited out.
// A refusal the budget did not cause is asked once more, which costs one
// eviction call; the backoff goes on from there.
func (c *Controller) retryRefusedUnder(pdb *policyv1.PodDisruptionBudget) {
	sel := osts.BudgetSelector(pdb)
	for key, pods := range c.evictions.refusedIn(pdb.Namespace) {
		var due []string
		for _, name := range pods {
			if r, ok := c.cachedPod(pdb.Namespace)(name); ok && sel.Matches(labels.Set(r.Labels)) {
				due = append(due, name)
			}
		}
		if len(due) > 0 && c.evictions.due(key, due) {
			c.enqueue(key)
		}
	}
}

// equalOwners reports whether two owner reference lists name the same
// controller.
func equalOwners(a, b []metav1.OwnerReference) bool {
	ca, cb := metav1.GetControllerOfNoCopy(&metav1.ObjectMeta{OwnerReferences: a}), metav1.GetControllerOfNoCopy(&metav1.ObjectMeta{OwnerReferences: b})
	if ca == nil || cb == nil {
		return ca == cb
	}
	return ca.UID == cb.UID
}
