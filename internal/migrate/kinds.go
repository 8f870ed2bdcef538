package migrate

import (
	"context"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// sets reaches one kind's sets in a namespace with the few calls a
// migration makes.
type sets interface {
	// state reads the named set; a missing set is the API's NotFound
	// error.
	state(ctx context.Context, name string) (setState, error)
	// create creates obj, which is of the kind; dryRun only asks the
	// API server whether it would.
	create(ctx context.Context, obj any, dryRun bool) (types.UID, error)
	// orphanDelete deletes the named set, leaving its dependents, if it
	// still has uid and resourceVersion rv.
	orphanDelete(ctx context.Context, name string, uid types.UID, rv string) error
	// carryStatus writes status.currentRevision and collisionCount.
	carryStatus(ctx context.Context, name, current string, collisions *int32) error
}

// setState is what a migration reads of a set: which object it is and
// whether its controller has computed its update revision.
type setState struct {
	UID                             types.UID
	ResourceVersion                 string
	Generation, ObservedGeneration  int64
	CurrentRevision, UpdateRevision string
	CollisionCount                  int32
	// Labels and Annotations are the set's, as read.
	Labels, Annotations map[string]string
	// Deleting says the set has a deletion timestamp: deleted, waiting
	// for the garbage collector.
	Deleting bool
}

// stateOf is what a migration reads of a set of either kind.
func stateOf(m *metav1.ObjectMeta, observed int64, current, update string, collisions *int32) setState {
	return setState{
		UID: m.UID, ResourceVersion: m.ResourceVersion, Generation: m.Generation, ObservedGeneration: observed,
		CurrentRevision: current, UpdateRevision: update, CollisionCount: ptr.Deref(collisions, 0),
		Labels: m.Labels, Annotations: m.Annotations, Deleting: m.DeletionTimestamp != nil,
	}
}

// sameFor says whether the set is, for the migration, the one it read
// as was: the same object, spec (generation), metadata and rollout
// state. Only its status counts and conditions may differ, which the
// migration neither carries nor backs up as a decision.
func (s setState) sameFor(was setState) bool {
	return s.UID == was.UID && !s.Deleting && s.Generation == was.Generation &&
		s.CurrentRevision == was.CurrentRevision && s.UpdateRevision == was.UpdateRevision &&
		s.CollisionCount == was.CollisionCount &&
		maps.Equal(s.Labels, was.Labels) && maps.Equal(s.Annotations, was.Annotations)
}

// orphan is the delete that leaves pods, claims and revisions running,
// guarded against a set changed since it was read.
func orphan(uid types.UID, rv string) metav1.DeleteOptions {
	policy := metav1.DeletePropagationOrphan
	return metav1.DeleteOptions{PropagationPolicy: &policy, Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}}
}

func createOptions(dryRun bool) metav1.CreateOptions {
	if dryRun {
		return metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	}
	return metav1.CreateOptions{}
}

// appsSets is apps/v1's StatefulSets.
type appsSets struct {
	client    kubernetes.Interface
	namespace string
}

func (a appsSets) state(ctx context.Context, name string) (setState, error) {
	s, err := a.client.AppsV1().StatefulSets(a.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return setState{}, err
	}
	return stateOf(&s.ObjectMeta, s.Status.ObservedGeneration, s.Status.CurrentRevision, s.Status.UpdateRevision, s.Status.CollisionCount), nil
}

func (a appsSets) create(ctx context.Context, obj any, dryRun bool) (types.UID, error) {
	s, err := a.client.AppsV1().StatefulSets(a.namespace).Create(ctx, obj.(*appsv1.StatefulSet), createOptions(dryRun))
	if err != nil {
		return "", err
	}
	return s.UID, nil
}

func (a appsSets) orphanDelete(ctx context.Context, name string, uid types.UID, rv string) error {
	return a.client.AppsV1().StatefulSets(a.namespace).Delete(ctx, name, orphan(uid, rv))
}

func (a appsSets) carryStatus(ctx context.Context, name, current string, collisions *int32) error {
	api := a.client.AppsV1().StatefulSets(a.namespace)
	return conflict.Retry(func() error {
		s, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Status.CurrentRevision, s.Status.CollisionCount = current, collisions
		_, err = api.UpdateStatus(ctx, s, metav1.UpdateOptions{})
		return err
	})
}

// extSets is the extended kind's StatefulSets.
type extSets struct {
	client ostsclient.Interface
}

func (e extSets) state(ctx context.Context, name string) (setState, error) {
	s, err := e.client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return setState{}, err
	}
	return stateOf(&s.ObjectMeta, s.Status.ObservedGeneration, s.Status.CurrentRevision, s.Status.UpdateRevision, s.Status.CollisionCount), nil
}

func (e extSets) create(ctx context.Context, obj any, dryRun bool) (types.UID, error) {
	s, err := e.client.Create(ctx, obj.(*v1alpha1.StatefulSet), createOptions(dryRun))
	if err != nil {
		return "", err
	}
	return s.UID, nil
}

func (e extSets) orphanDelete(ctx context.Context, name string, uid types.UID, rv string) error {
	return e.client.Delete(ctx, name, orphan(uid, rv))
}

func (e extSets) carryStatus(ctx context.Context, name, current string, collisions *int32) error {
	return conflict.Retry(func() error {
		s, err := e.client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Status.CurrentRevision, s.Status.CollisionCount = current, collisions
		_, err = e.client.UpdateStatus(ctx, s, metav1.UpdateOptions{})
		return err
	})
}
