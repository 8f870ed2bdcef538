package controller

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// extendedDoor is the extended kind's door: the set is read and its
// status written through its own client (extendedSets), the planner gets
// the kind's spec and what was observed around it, and the kind's
// features (objects its revisions hold, role probes, rollout groups,
// budgets, holds, eviction answers) each have their step. It is only
// reached with the kind served: without the controller's extendedSets,
// its sets are not found.
type extendedDoor struct{}

func (extendedDoor) kind() setkind.Kind { return setkind.Extended }

func (d extendedDoor) target(c *Controller, key, ns, name string) (*target, error) {
	if c.ext == nil {
		return nil, apierrors.NewNotFound(v1alpha1.Resource.GroupResource(), name)
	}
	set, err := c.ext.lister.Get(ns, name)
	if err != nil {
		return nil, err
	}
	set = c.storedExtended(key, set)
	inputs, observed := osts.Extended(set), osts.Observe(set)
	observed.Refused = c.evictions.of(key)
	c.storageClasses(inputs, &observed)
	c.topologyNodes(inputs, &observed)
	return &target{key: key, door: d, view: osts.View(set), extended: set, inputs: inputs, observed: observed,
		revisions: osts.RevisionOptions(set)}, nil
}

// fresh reads through apps/v1 when the kind is not served, as adoption
// did before the kind had a door.
func (extendedDoor) fresh(ctx context.Context, c *Controller, set *appsv1.StatefulSet) (metav1.Object, error) {
	if c.ext == nil {
		return appsV1Door{}.fresh(ctx, c, set)
	}
	return c.ext.client.StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
}

// cachesReady: the node caches (the node-failure pass and topology read
// them) and, for a set that keeps its own budget, the budget cache.
func (extendedDoor) cachesReady(c *Controller, t *target) bool {
	budgets := c.budgetsReady()
	return c.nodesReady() && (budgets || t.extended.Spec.DisruptionBudget == nil)
}

// prepare resolves the objects the set's revisions hold (syncConfig),
// then starts the set's role probes.
func (extendedDoor) prepare(ctx context.Context, c *Controller, t *target) (bool, time.Duration, error) {
	if planned, requeue, err := c.syncConfig(ctx, t); !planned {
		return false, requeue, err
	}
	c.calls.EnsureRoleProbe(ctx, t.key, t.extended)
	return true, 0, nil
}

// stored is the target itself: it is already the stored copy
// (storedExtended).
func (extendedDoor) stored(_ *Controller, t *target) *appsv1.StatefulSet { return t.view }

// revisionCreated makes the set rev's controller, under the kind's own
// type, and records the objects rev's template reads (annotateConfig).
func (extendedDoor) revisionCreated(t *target, rev *appsv1.ControllerRevision) error {
	rev.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(t.view, t.kind().GroupVersionKind())}
	return annotateConfig(t, rev)
}

// observeAround adds the set's revisions, the nodes the node-failure
// pass judges, the budgets that select its pods and the Evictions asked
// of them.
func (extendedDoor) observeAround(ctx context.Context, c *Controller, t *target, in *planner.Input, revs []*appsv1.ControllerRevision) {
	in.Observed.Revisions = revs
	in.Observed.Nodes = c.judgeNodes(ctx, *in)
	in.Observed.Budgets = c.budgetFacts(t, in.Pods)
	in.Observed.EvictionRequests = c.responder.requests(t.view.Namespace, t.view.Name)
}

func (extendedDoor) groupTurn(c *Controller, t *target, in planner.Input) (*planner.GroupTurn, time.Duration) {
	return c.groupTurn(t, in)
}

func (extendedDoor) reconcileBudget(ctx context.Context, c *Controller, t *target, seen *planner.Budgets, plan planner.Plan) error {
	return c.reconcileBudget(ctx, t, seen, plan)
}

// holdable judges the extended part of the status (extendedHoldable).
func (extendedDoor) holdable(c *Controller, t *target, plan planner.Plan) bool {
	return extendedHoldable(t.extended.Status, c.extendedStatus(t, plan))
}

// writeStatus returns the target's view: the stored copy is kept for the
// next sync (storedExtended), not planned from in this one.
func (extendedDoor) writeStatus(ctx context.Context, c *Controller, t *target, plan planner.Plan) (*appsv1.StatefulSet, error) {
	return t.view, c.writeExtendedStatus(ctx, t, plan)
}

// statusWritten records the event of the hold the status recorded.
func (extendedDoor) statusWritten(c *Controller, t *target, plan planner.Plan) { c.recordHold(t, plan) }

// answerEvictions writes the answers through the eviction responder
// (evictionresponder.go).
func (extendedDoor) answerEvictions(ctx context.Context, c *Controller, set *appsv1.StatefulSet, plan planner.Plan) (time.Duration, error) {
	if plan.Extended == nil {
		return 0, nil
	}
	return c.responder.respond(ctx, set.Namespace, set.Name, plan.Extended.EvictionResponses)
}

// requeue looks again at a set's Secrets (configRequeue).
func (extendedDoor) requeue(t *target, requeue time.Duration) time.Duration {
	return configRequeue(t, requeue)
}

// podToCreate names the controller as the pod's eviction responder when
// it answers Evictions.
func (extendedDoor) podToCreate(pod *corev1.Pod, responder bool) *corev1.Pod {
	if responder {
		return withResponder(pod)
	}
	return pod
}

// nodeJudged: the node-failure and node-drain passes read the nodes.
func (extendedDoor) nodeJudged() bool { return true }

func (extendedDoor) enqueueOwner(c *Controller, namespace string, ref *metav1.OwnerReference) {
	if c.ext == nil {
		return
	}
	if set, err := c.ext.lister.Get(namespace, ref.Name); err == nil && set.UID == ref.UID {
		c.enqueueExtended(set)
	}
}
