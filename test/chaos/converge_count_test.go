package chaos

import (
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// countNotConverged is extendedNotConverged for a set whose partition
// counts pods (partitionMode Count): every pod is there, Running and
// Ready, at one of the set's revisions, and at least replicas -
// partition of them (reserved ordinals left out) run the update
// revision; the others may keep any earlier one. Which pods are kept
// follows the update order, which this check does not re-derive.
func countNotConverged(set *v1alpha1.StatefulSet, view *appsv1.StatefulSet, ords []int32, pods []corev1.Pod,
	revisions []appsv1.ControllerRevision, claims []corev1.PersistentVolumeClaim,
) string {
	anyRevision := view.DeepCopy()
	anyRevision.Spec.UpdateStrategy.RollingUpdate.Partition = ptrTo(int32(math.MaxInt32))
	if why := setNotConverged(anyRevision, ords, pods, revisions, claims); why != "" {
		return why
	}
	var part int32
	if p := set.Spec.UpdateStrategy.RollingUpdate.Partition; p != nil {
		part = *p
	}
	var updated []int32
	for i := range pods {
		ord, ok := parseOrdinal(set.Name, pods[i].Name)
		if ok && pods[i].Labels[appsv1.ControllerRevisionHashLabelKey] == set.Status.UpdateRevision {
			updated = append(updated, ord)
		}
	}
	if want := int64(len(ords)) - int64(part); int64(len(updated)) < want {
		return fmt.Sprintf("%s: %d pods at the update revision, want at least %d (partition %d counted in pods)", set.Name, len(updated), want, part)
	}
	if set.Spec.UpdateStrategy.Type != v1alpha1.RollingUpdateStatefulSetStrategyType {
		return ""
	}
	return claimsNotGrown(set, updated, claims)
}

func ptrTo[T any](v T) *T { return &v }
