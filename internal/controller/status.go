package controller

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// StatusWriter writes a set's status.
type StatusWriter interface {
	// Write stores want's controller-owned fields on set unless they are
	// already there. Of want's conditions it writes those that differ from
	// the set's (a Recreate update's Progressing condition) and keeps the
	// others as stored, whoever wrote them. It returns the stored set (or
	// set itself when nothing was written).
	Write(ctx context.Context, set *appsv1.StatefulSet, want appsv1.StatefulSetStatus) (*appsv1.StatefulSet, error)
	// Stored returns the freshest copy of set the writer knows: its own
	// last write when the cache has not caught up, else set.
	Stored(set *appsv1.StatefulSet) *appsv1.StatefulSet
}

// apiStatus remembers, in a memory of its own (stored), the set each
// set's last status write returned. Right after a write the informer often still holds the older
// copy; writing from it would cost a conflict, a GET and a second write,
// and comparing with it would write a status that is already stored.
type apiStatus struct {
	client kubernetes.Interface
	stored *perSet[*appsv1.StatefulSet]
}

var _ StatusWriter = (*apiStatus)(nil)

func newAPIStatus(client kubernetes.Interface, ms *memories) *apiStatus {
	return &apiStatus{client: client, stored: newPerSet[*appsv1.StatefulSet](ms)}
}

// Stored returns the freshest copy of set (see freshest).
func (s *apiStatus) Stored(set *appsv1.StatefulSet) *appsv1.StatefulSet { return s.freshest(set) }

func (s *apiStatus) Write(ctx context.Context, set *appsv1.StatefulSet, want appsv1.StatefulSetStatus) (*appsv1.StatefulSet, error) {
	base := s.freshest(set)
	if statusEqual(base.Status, want) {
		return base, nil
	}
	sets := s.client.AppsV1().StatefulSets(set.Namespace)
	cur := base.DeepCopy()
	changed := changedConditions(base.Status.Conditions, want.Conditions)
	var stored *appsv1.StatefulSet
	err := conflict.Retry(func() error {
		applyStatus(&cur.Status, want)
		setConditions(&cur.Status, changed)
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
	s.remember(stored)
	return stored, nil
}

// freshest returns the last stored copy of set when it is newer than the
// cached one and describes the same spec generation; otherwise set.
func (s *apiStatus) freshest(set *appsv1.StatefulSet) *appsv1.StatefulSet {
	out := set
	s.stored.read(setkind.AppsV1.Key(set.Namespace, set.Name), func(held **appsv1.StatefulSet) { out = fresher(held, set) })
	return out
}

// fresher returns *held when the cache's copy, cached, has not caught up
// with it and both describe the same spec generation; otherwise cached.
// *held is cleared once the cache has caught up with it (or the set was
// replaced): a thousand sets at rest would otherwise each hold one for good.
func fresher[S any, P interface {
	*S
	metav1.Object
}](held *P, cached P) P {
	last := *held
	switch {
	case last == nil:
	case last.GetUID() != cached.GetUID() || !newerRV(last.GetResourceVersion(), cached.GetResourceVersion()):
		*held = nil
	case last.GetGeneration() == cached.GetGeneration():
		return last
	}
	return cached
}

// remember keeps stored, without its managed fields (nothing here reads
// them, and the cache's copies have none), until the cache catches up.
func (s *apiStatus) remember(stored *appsv1.StatefulSet) {
	stored.ManagedFields = nil
	s.stored.update(setkind.AppsV1.Key(stored.Namespace, stored.Name), func(held **appsv1.StatefulSet) { *held = stored })
}

// newerRV reports whether resource version a is newer than b. Resource
// versions are opaque to clients in general; on etcd-backed API servers they
// are increasing integers, and anything else is treated as not newer.
func newerRV(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x > y
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

// changedConditions returns the conditions of want that are not in had
// exactly as they are there.
func changedConditions(had, want []appsv1.StatefulSetCondition) []appsv1.StatefulSetCondition {
	var out []appsv1.StatefulSetCondition
	for _, c := range want {
		if !slices.ContainsFunc(had, func(h appsv1.StatefulSetCondition) bool { return apiequality.Semantic.DeepEqual(h, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// setConditions puts each condition of changed in st, in place of the
// one of its type.
func setConditions(st *appsv1.StatefulSetStatus, changed []appsv1.StatefulSetCondition) {
	for _, c := range changed {
		i := slices.IndexFunc(st.Conditions, func(h appsv1.StatefulSetCondition) bool { return h.Type == c.Type })
		if i < 0 {
			st.Conditions = append(st.Conditions, c)
			continue
		}
		st.Conditions[i] = c
	}
}

// statusEqual reports whether a and b agree on every field the controller
// writes, conditions included: as upstream does from 1.37, a change of a
// condition alone is a status write.
func statusEqual(a, b appsv1.StatefulSetStatus) bool {
	return len(changedConditions(a.Conditions, b.Conditions)) == 0 &&
		a.ObservedGeneration == b.ObservedGeneration &&
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
