package chaos

import (
	"context"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// replaceStuckPods does what upstream documents for a rollout stuck on a
// broken revision (#67250): once the template is fixed, delete the pods
// that still run the broken one. Only where the controller is not
// expected to do it itself: below the partition under Parallel (a
// Parallel rollout replaces an old-revision pod at or above it whether it
// is healthy or not; Recreate replaces them all); under OrderedReady in
// apps/v1 sets and extended sets without self-healing, and below the
// partition in extended sets with it (self-healing replaces only the pods
// the rolling update would).
func (r *run) replaceStuckPods(ctx context.Context) {
	snap, err := invariant.TakeSnapshot(ctx, r.clients(), r.ns)
	if err != nil {
		return
	}
	for i := range snap.Sets {
		r.deleteStuck(ctx, &snap.Sets[i], snap.Pods, math.MaxInt32)
	}
	for i := range snap.Extended {
		x := &snap.Extended[i]
		ru := x.Spec.UpdateStrategy.RollingUpdate
		switch {
		case ru == nil:
		case ru.SelfHealing == v1alpha1.SelfHealingDisabled:
			r.deleteStuck(ctx, invariant.ExtendedView(x), snap.Pods, math.MaxInt32)
		case ru.Partition != nil:
			r.deleteStuck(ctx, invariant.ExtendedView(x), snap.Pods, *ru.Partition)
		}
	}
}

// deleteStuck deletes set's pods below ordinal below (under Parallel,
// below the partition too) that carry a behavior annotation, are not
// Ready and run another revision than the set's observed update revision,
// once its status has caught up.
func (r *run) deleteStuck(ctx context.Context, set *appsv1.StatefulSet, pods []corev1.Pod, below int32) {
	if set.Status.ObservedGeneration != set.Generation || templateOf(&set.Spec.Template).behavior != "" {
		return
	}
	if set.Spec.PodManagementPolicy == appsv1.ParallelPodManagement {
		below = min(below, partitionOf(set))
	}
	for i := range pods {
		p := &pods[i]
		if !metav1.IsControlledBy(p, set) || p.DeletionTimestamp != nil || p.Annotations[behaviorKey] == "" || podReady(p) ||
			p.Labels[appsv1.ControllerRevisionHashLabelKey] == set.Status.UpdateRevision || ordinalOf(set, p) >= below {
			continue
		}
		r.watcher.ExternalDelete(p.UID)
		err := r.client.CoreV1().Pods(r.ns).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
		r.logf("delete stuck pod %s of the broken template (%s)", p.Name, errWord(err))
	}
}

// partitionOf is set's rolling update partition, 0 without one.
func partitionOf(set *appsv1.StatefulSet) int32 {
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return *ru.Partition
	}
	return 0
}

// ordinalOf is p's ordinal in set; math.MaxInt32 when its name has none.
func ordinalOf(set *appsv1.StatefulSet, p *corev1.Pod) int32 {
	if ord, ok := parseOrdinal(set.Name, p.Name); ok {
		return ord
	}
	return math.MaxInt32
}
