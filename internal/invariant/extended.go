package invariant

import (
	"math"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// applyExtendedSet records a version of an extended set: the rules shared
// with apps/v1 read its view, and the rollback rules its own fields.
func (r *replay) applyExtendedSet(ev Event, set *v1alpha1.StatefulSet) {
	view := ExtendedView(set)
	prev := r.sets[setKey(KindExtendedSet, set.Namespace, set.Name)]
	var before *v1alpha1.StatefulSet
	if prev != nil && prev.uid == set.UID && prev.cur != nil {
		before = prev.ext[prev.cur]
	}
	st := r.trackSet(ev, KindExtendedSet, view)
	if st.ext == nil {
		st.ext = map[*appsv1.StatefulSet]*v1alpha1.StatefulSet{}
	}
	st.ext[view] = set
	if ranges := ReservedOrdinals(set); len(ranges) > 0 {
		r.reserved[view] = ranges
	}
	if ranges := OfflineOrdinals(set); len(ranges) > 0 {
		r.offline[view] = ranges
	}
	if ev.Type != "DELETED" {
		r.judgeRollbacks(ev, st, before, set)
		r.judgeSpecWrite(ev, before, set)
	}
}

// ExtendedView is an extended set read as an apps/v1 set: the fields the
// kinds share, as stored (no defaulting: the rules default what they read).
// Recreate keeps its type, which no apps/v1 rule treats as a rolling
// update. A held version's update revision is its hold's revision: the
// one it runs while the spec's is held away. The view shares the
// original's pointers; neither is modified.
func ExtendedView(s *v1alpha1.StatefulSet) *appsv1.StatefulSet {
	v := &appsv1.StatefulSet{
		ObjectMeta: s.ObjectMeta,
		Spec: appsv1.StatefulSetSpec{
			Replicas: s.Spec.Replicas, Selector: s.Spec.Selector, Template: s.Spec.Template,
			VolumeClaimTemplates: s.Spec.VolumeClaimTemplates, ServiceName: s.Spec.ServiceName,
			PodManagementPolicy: s.Spec.PodManagementPolicy, RevisionHistoryLimit: s.Spec.RevisionHistoryLimit,
			MinReadySeconds: s.Spec.MinReadySeconds,
			UpdateStrategy:  appsv1.StatefulSetUpdateStrategy{Type: appsv1.StatefulSetUpdateStrategyType(s.Spec.UpdateStrategy.Type)},
		},
		Status: appsv1.StatefulSetStatus{
			ObservedGeneration: s.Status.ObservedGeneration, Replicas: s.Status.Replicas, ReadyReplicas: s.Status.ReadyReplicas,
			CurrentReplicas: s.Status.CurrentReplicas, UpdatedReplicas: s.Status.UpdatedReplicas,
			AvailableReplicas: s.Status.AvailableReplicas, CurrentRevision: s.Status.CurrentRevision,
			UpdateRevision: s.Status.UpdateRevision, CollisionCount: s.Status.CollisionCount,
		},
	}
	if h := heldAway(s); h != nil {
		v.Status.UpdateRevision = h.Revision
	}
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		v.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ru.Partition, MaxUnavailable: ru.MaxUnavailable}
	}
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		v.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: p.WhenDeleted, WhenScaled: p.WhenScaled}
	}
	if o := s.Spec.Ordinals; o != nil {
		v.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: o.Start}
	}
	return v
}

// extOf returns the extended set a version views; nil for apps/v1.
func (st *setTrack) extOf(v *appsv1.StatefulSet) *v1alpha1.StatefulSet {
	if st == nil || st.ext == nil {
		return nil
	}
	return st.ext[v]
}

// extended reports whether the track follows an extended set.
func (st *setTrack) extended() bool { return st != nil && st.kind == KindExtendedSet }

// paused reports whether version v holds pod updates
// (rollingUpdate.paused, or a hold of the failure policy whose action is
// Paused).
func (st *setTrack) paused(v *appsv1.StatefulSet) bool {
	x := st.extOf(v)
	return x != nil && (x.Spec.UpdateStrategy.RollingUpdate != nil && x.Spec.UpdateStrategy.RollingUpdate.Paused || st.heldPaused(v))
}

// selfHealing reports whether version v replaces broken old-revision pods:
// a rolling update, not paused, selfHealing not Disabled.
func (st *setTrack) selfHealing(v *appsv1.StatefulSet) bool {
	x := st.extOf(v)
	if x == nil || !rollingUpdate(v) || st.paused(v) {
		return false
	}
	ru := x.Spec.UpdateStrategy.RollingUpdate
	return ru == nil || ru.SelfHealing != v1alpha1.SelfHealingDisabled
}

// recreate reports whether version v has the Recreate strategy, of
// either kind (apps/v1 has it from 1.37, behind its alpha gate).
func (st *setTrack) recreate(v *appsv1.StatefulSet) bool {
	if x := st.extOf(v); x != nil {
		return x.Spec.UpdateStrategy.Type == v1alpha1.RecreateStatefulSetStrategyType
	}
	return v.Spec.UpdateStrategy.Type == appsv1.RecreateStatefulSetStrategyType
}

// partitionOf is v's partition; a paused set behaves as if every ordinal
// were below it.
func (st *setTrack) partitionOf(v *appsv1.StatefulSet) int32 {
	if st.paused(v) {
		return math.MaxInt32
	}
	if st.countPartition(v) {
		return 0 // no ordinal bound: RuleCountPartition judges the count
	}
	return partitionOf(v)
}

// minPartition is the lowest partition of the versions.
func (st *setTrack) minPartition(specs []*appsv1.StatefulSet) int32 {
	p := st.partitionOf(specs[0])
	for _, s := range specs[1:] {
		p = min(p, st.partitionOf(s))
	}
	return p
}

// minFirstUpdated is the lowest ordinal any version lets its rolling
// update replace: the partition counted from the start ordinal, as
// upstream counts it (the partition is an index into the set's ordinals).
func (st *setTrack) minFirstUpdated(specs []*appsv1.StatefulSet) int64 {
	first := int64(math.MaxInt64)
	for _, s := range specs {
		start, _ := span(s)
		first = min(first, int64(start)+int64(st.partitionOf(s)))
	}
	return first
}

// maxUnavailableOf is v's maxUnavailable scaled to its replicas (a
// percentage rounded down), at least 1; 1 when unset.
func maxUnavailableOf(v *appsv1.StatefulSet) int {
	ru := v.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1
	}
	_, end := span(v)
	start, _ := span(v)
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, int(end-start), false)
	if err != nil {
		return 1
	}
	return max(n, 1)
}
