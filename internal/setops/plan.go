package setops

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/cli/rollout/view"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// Observed is a set with everything the planner reads: its revisions
// (oldest first), the pods it controls and the namespace's claims by name.
type Observed struct {
	Set       *appsv1.StatefulSet
	Revisions []*appsv1.ControllerRevision
	Pods      []*corev1.Pod
	Claims    map[string]*corev1.PersistentVolumeClaim
}

// Observe reads the set's revisions, pods and claims with plain List
// calls, the way the controller observes them.
func (t *Target) Observe(ctx context.Context) (Observed, error) {
	o := Observed{Set: t.Set}
	var err error
	if o.Revisions, err = t.Revisions(ctx); err != nil {
		return Observed{}, err
	}
	if o.Pods, err = t.Pods(ctx); err != nil {
		return Observed{}, err
	}
	if o.Claims, err = t.Claims(ctx); err != nil {
		return Observed{}, err
	}
	return o, nil
}

// PlanReport runs the controller's planner on o and describes its plan,
// without writing anything, not even a revision a new template needs.
func PlanReport(o Observed, now time.Time) (view.PlanReport, error) {
	res, err := revision.Resolve(o.Set, o.Revisions)
	if err != nil {
		return view.PlanReport{}, fmt.Errorf("resolving the revisions of statefulset.apps/%s: %w", o.Set.Name, err)
	}
	plan := planner.Compute(planner.Input{
		Set: o.Set, Pods: o.Pods, Claims: o.Claims,
		Current: res.Current, Update: res.Update, CollisionCount: res.CollisionCount, Now: now,
	})
	return view.NewPlanReport(o.Set, res, o.Revisions, plan), nil
}

// PendingUpdate resolves the update revision while the controller has not
// yet observed the set's generation, so cells are not judged against the
// previous update revision; otherwise status.updateRevision is right and
// it returns "".
func PendingUpdate(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision) (string, error) {
	if set.Generation == set.Status.ObservedGeneration {
		return "", nil
	}
	res, err := revision.Resolve(set, revs)
	if err != nil {
		return "", fmt.Errorf("resolving the update revision of statefulset.apps/%s: %w", set.Name, err)
	}
	return res.Update.Name, nil
}
