package planner

import appsv1 "k8s.io/api/apps/v1"

// Replicas is spec.replicas, 1 when unset (the API's default) and never
// negative. Everyone who reads a set's replica count uses this one.
func Replicas(set *appsv1.StatefulSet) int32 {
	if set.Spec.Replicas == nil {
		return 1
	}
	return max(*set.Spec.Replicas, 0)
}

// StartOrdinal is spec.ordinals.start, 0 when unset and never negative:
// the first ordinal of the set's range.
func StartOrdinal(set *appsv1.StatefulSet) int32 {
	if set.Spec.Ordinals == nil {
		return 0
	}
	return max(set.Spec.Ordinals.Start, 0)
}

// Partition is rollingUpdate.partition, 0 when unset: under RollingUpdate,
// pods at the first Partition ordinals of the range keep their revision.
func Partition(set *appsv1.StatefulSet) int32 {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return 0
	}
	return *ru.Partition
}
