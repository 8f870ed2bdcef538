package view

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// FreezePartition is the partition that holds a rollout where it is: pods
// at or above the partition (counted from spec.ordinals.start) get the
// update, so it is one above the highest ordinal still at an old revision.
// Rules, in order:
//   - a pod that is missing or terminating is already on its way to the
//     update revision; ordinals above every old pod keep that course;
//   - when no pod is at an old revision, the partition is the lowest such
//     in-flight ordinal, else replicas (nothing more changes, including
//     future template edits);
//   - it never goes below the set's own partition: pause must not release
//     pods the user was holding.
func FreezePartition(set *appsv1.StatefulSet, pods []*corev1.Pod, update string) int32 {
	start, n := planner.StartOrdinal(set), planner.Replicas(set)
	byName := make(map[string]*corev1.Pod, len(pods))
	for _, p := range pods {
		byName[p.Name] = p
	}
	highestOld, lowestInFlight := int32(-1), n
	for i := int32(0); i < n; i++ {
		pod := byName[planner.PodName(set.Name, start+i)]
		switch {
		case pod == nil || pod.DeletionTimestamp != nil:
			lowestInFlight = min(lowestInFlight, i)
		case pod.Labels[appsv1.StatefulSetRevisionLabel] != update:
			highestOld = i
		}
	}
	p := n
	if highestOld >= 0 {
		p = highestOld + 1
	} else if lowestInFlight < n {
		p = lowestInFlight
	}
	if own := planner.Partition(set); own > p {
		p = min(own, n)
	}
	return p
}
