package controller

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// StatusWriter writes a set's status.
type StatusWriter interface {
	// Write stores want's controller-owned fields on set unless they are
	// already there, keeping conditions written by others. It returns the
	// stored set (or set itself when nothing was written).
	Write(ctx context.Context, set *appsv1.StatefulSet, want appsv1.StatefulSetStatus) (*appsv1.StatefulSet, error)
}

type apiStatus struct{ client kubernetes.Interface }

var _ StatusWriter = (*apiStatus)(nil)

func (s *apiStatus) Write(ctx context.Context, set *appsv1.StatefulSet, want appsv1.StatefulSetStatus) (*appsv1.StatefulSet, error) {
	if statusEqual(set.Status, want) {
		return set, nil
	}
	sets := s.client.AppsV1().StatefulSets(set.Namespace)
	cur := set.DeepCopy()
	var stored *appsv1.StatefulSet
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		applyStatus(&cur.Status, want)
		var err error
		stored, err = sets.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if fresh, getErr := sets.Get(ctx, set.Name, metav1.GetOptions{}); getErr == nil {
			if fresh.UID != set.UID {
				return fmt.Errorf("set %s was replaced", set.Name)
			}
			cur = fresh
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("updating status of %s: %w", set.Name, err)
	}
	return stored, nil
}

// applyStatus copies the fields the controller owns; conditions belong to
// whoever wrote them and are left as they are. collisionCount only grows.
func applyStatus(dst *appsv1.StatefulSetStatus, want appsv1.StatefulSetStatus) {
	conditions := dst.Conditions
	collisions := dst.CollisionCount
	*dst = want
	dst.Conditions = conditions
	if collisions != nil && (want.CollisionCount == nil || *want.CollisionCount < *collisions) {
		dst.CollisionCount = collisions
	}
	if dst.CollisionCount == nil {
		dst.CollisionCount = new(int32)
	}
}

func statusEqual(a, b appsv1.StatefulSetStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration &&
		a.Replicas == b.Replicas &&
		a.ReadyReplicas == b.ReadyReplicas &&
		a.CurrentReplicas == b.CurrentReplicas &&
		a.UpdatedReplicas == b.UpdatedReplicas &&
		a.AvailableReplicas == b.AvailableReplicas &&
		a.CurrentRevision == b.CurrentRevision &&
		a.UpdateRevision == b.UpdateRevision &&
		int32Value(a.CollisionCount) == int32Value(b.CollisionCount) &&
		(a.CollisionCount != nil) == (b.CollisionCount != nil)
}

func int32Value(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
