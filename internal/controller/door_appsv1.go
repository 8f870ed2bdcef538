package controller

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// appsV1Door is apps/v1's door: the set is read and its status written
// through the typed client, the planner sees the set alone, and every
// extended step is none, so that the sync is upstream's.
type appsV1Door struct{}

func (appsV1Door) kind() setkind.Kind { return setkind.AppsV1 }

func (d appsV1Door) target(c *Controller, key, ns, name string) (*target, error) {
	set, err := c.sets.StatefulSets(ns).Get(name)
	if err != nil {
		return nil, err
	}
	return &target{key: key, door: d, view: set}, nil
}

func (appsV1Door) fresh(ctx context.Context, c *Controller, set *appsv1.StatefulSet) (metav1.Object, error) {
	return c.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
}

func (appsV1Door) cachesReady(*Controller, *target) bool { return true }

func (appsV1Door) prepare(context.Context, *Controller, *target) (bool, time.Duration, error) {
	return true, 0, nil
}

// stored is the status writer's last write when the cache lags (the
// target is the cache's copy).
func (appsV1Door) stored(c *Controller, t *target) *appsv1.StatefulSet {
	return c.status.Stored(t.view)
}

// revisionCreated leaves rev as upstream makes it.
func (appsV1Door) revisionCreated(*target, *appsv1.ControllerRevision) error { return nil }

func (appsV1Door) observeAround(context.Context, *Controller, *target, *planner.Input, []*appsv1.ControllerRevision) {
}

func (appsV1Door) groupTurn(*Controller, *target, planner.Input) (*planner.GroupTurn, time.Duration) {
	return nil, 0
}

func (appsV1Door) reconcileBudget(context.Context, *Controller, *target, *planner.Budgets, planner.Plan) error {
	return nil
}

func (appsV1Door) holdable(*Controller, *target, planner.Plan) bool { return true }

func (appsV1Door) writeStatus(ctx context.Context, c *Controller, t *target, plan planner.Plan) (*appsv1.StatefulSet, error) {
	written, err := c.status.Write(ctx, t.view, plan.Status)
	if err != nil {
		return t.view, err
	}
	return written, nil
}

func (appsV1Door) statusWritten(*Controller, *target, planner.Plan) {}

func (appsV1Door) answerEvictions(context.Context, *Controller, *appsv1.StatefulSet, planner.Plan) (time.Duration, error) {
	return 0, nil
}

func (appsV1Door) requeue(_ *target, requeue time.Duration) time.Duration { return requeue }

// podToCreate is the plan's pod: an apps/v1 set's pods are upstream's.
func (appsV1Door) podToCreate(pod *corev1.Pod, _ bool) *corev1.Pod { return pod }

func (appsV1Door) nodeJudged() bool { return false }

func (appsV1Door) enqueueOwner(c *Controller, namespace string, ref *metav1.OwnerReference) {
	if set, err := c.sets.StatefulSets(namespace).Get(ref.Name); err == nil && set.UID == ref.UID {
		c.enqueueSet(set)
	}
}
