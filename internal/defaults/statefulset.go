package defaults

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Options selects the defaults that depend on how the API server is
// configured rather than on the object.
type Options struct {
	// MaxUnavailable is the MaxUnavailableStatefulSet feature gate: when it
	// is on, a RollingUpdate strategy with rollingUpdate set gets
	// maxUnavailable 1 if it has none. Kubernetes 1.37 ships the gate on
	// (1.35.4 to 1.36 shipped it off).
	MaxUnavailable bool
}

// StatefulSet fills in, in place, every field an apps/v1 API server of
// Kubernetes 1.37 defaults on a StatefulSet: the set's own fields, its pod
// template (see PodTemplate) and its volume claim templates. Fields already
// set are never changed, except that resource quantities are rounded up to
// milli-units as the API server rounds them. A nil set is left alone.
func StatefulSet(set *appsv1.StatefulSet, opts Options) {
	if set == nil {
		return
	}
	spec := &set.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	updateStrategy(&spec.UpdateStrategy, opts)
	claimRetention(spec)
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](1)
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	PodTemplate(&spec.Template)
	for i := range spec.VolumeClaimTemplates {
		claimTemplate(&spec.VolumeClaimTemplates[i])
	}
}

// updateStrategy defaults an empty strategy to RollingUpdate with its
// parameters. An explicit RollingUpdate without rollingUpdate stays without
// it: the partition and maxUnavailable defaults only fill a rollingUpdate
// that exists.
func updateStrategy(s *appsv1.StatefulSetUpdateStrategy, opts Options) {
	if s.Type == "" {
		s.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if s.Type != appsv1.RollingUpdateStatefulSetStrategyType || s.RollingUpdate == nil {
		return
	}
	if s.RollingUpdate.Partition == nil {
		s.RollingUpdate.Partition = ptr.To[int32](0)
	}
	if opts.MaxUnavailable && s.RollingUpdate.MaxUnavailable == nil {
		s.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
	}
}

// claimRetention defaults both claim retention policies to Retain.
func claimRetention(spec *appsv1.StatefulSetSpec) {
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	policy := spec.PersistentVolumeClaimRetentionPolicy
	if policy.WhenDeleted == "" {
		policy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if policy.WhenScaled == "" {
		policy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
}
