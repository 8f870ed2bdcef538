package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// defaultedEmptySet is an empty StatefulSet as the API server stores it
// with MaxUnavailableStatefulSet off.
func defaultedEmptySet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{
		Replicas:            ptr.To[int32](1),
		PodManagementPolicy: appsv1.OrderedReadyPodManagement,
		UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
			Type:          appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0)},
		},
		RevisionHistoryLimit: ptr.To[int32](10),
		PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 "default-scheduler",
		}},
	}}
}

func TestStatefulSetDefaultsTheSetsOwnFields(t *testing.T) {
	maxOne := ptr.To(intstr.FromInt32(1))
	tests := []struct {
		name string
		opts Options
		in   func(*appsv1.StatefulSet)
		want func(*appsv1.StatefulSet)
	}{
		{"an empty set gets every default of the set and its pod", Options{},
			func(*appsv1.StatefulSet) {}, func(*appsv1.StatefulSet) {}},
		{"with the gate on an empty strategy also gets maxUnavailable 1", Options{MaxUnavailable: true},
			func(*appsv1.StatefulSet) {},
			func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = maxOne }},
		{"zero replicas and a zero history limit are kept", Options{},
			func(s *appsv1.StatefulSet) {
				s.Spec.Replicas, s.Spec.RevisionHistoryLimit = ptr.To[int32](0), ptr.To[int32](0)
			},
			func(s *appsv1.StatefulSet) {
				s.Spec.Replicas, s.Spec.RevisionHistoryLimit = ptr.To[int32](0), ptr.To[int32](0)
			}},
		{"a Parallel policy is kept", Options{},
			func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement },
			func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }},
		{"an explicit RollingUpdate without rollingUpdate gets no partition", Options{MaxUnavailable: true},
			func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType },
			func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate = nil }},
		{"OnDelete gets no rollingUpdate", Options{MaxUnavailable: true},
			func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType },
			func(s *appsv1.StatefulSet) {
				s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
			}},
		{"OnDelete keeps a rollingUpdate it has, without defaults", Options{MaxUnavailable: true},
			func(s *appsv1.StatefulSet) {
				s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
				s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
			},
			func(s *appsv1.StatefulSet) {
				s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType,
					RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{}}
			}},
		{"a partition and a maxUnavailable are kept", Options{MaxUnavailable: true},
			func(s *appsv1.StatefulSet) {
				s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{
					Partition: ptr.To[int32](2), MaxUnavailable: ptr.To(intstr.FromString("50%"))}
			},
			func(s *appsv1.StatefulSet) {
				s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{
					Partition: ptr.To[int32](2), MaxUnavailable: ptr.To(intstr.FromString("50%"))}
			}},
		{"with the gate off a given maxUnavailable is kept too", Options{},
			func(s *appsv1.StatefulSet) {
				s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: maxOne}
			},
			func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = maxOne }},
		{"a Delete retention policy is kept and the other one becomes Retain", Options{},
			func(s *appsv1.StatefulSet) {
				s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
					WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
			},
			func(s *appsv1.StatefulSet) {
				s.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &appsv1.StatefulSet{}
			tt.in(in)
			want := defaultedEmptySet()
			tt.want(want)
			if diff := cmp.Diff(want, defaulted(t, in, tt.opts)); diff != "" {
				t.Errorf("StatefulSet() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatefulSetDefaultsClaimTemplates(t *testing.T) {
	filesystem, block := ptr.To(corev1.PersistentVolumeFilesystem), ptr.To(corev1.PersistentVolumeBlock)
	tests := []struct {
		name string
		in   corev1.PersistentVolumeClaim
		want corev1.PersistentVolumeClaim
	}{
		{"a claim template is a filesystem claim with status Pending",
			corev1.PersistentVolumeClaim{},
			corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: filesystem},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}},
		{"a block claim and a phase are kept",
			corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: block},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
			corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: block},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}},
		{"requests, limits and status quantities are rounded up to milli-units",
			corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: block,
				Resources: corev1.VolumeResourceRequirements{Requests: quantities("storage", "1500u"), Limits: quantities("storage", "0.0001")}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: quantities("storage", "1n"),
					AllocatedResources: quantities("storage", "1Gi")}},
			corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: block,
				Resources: corev1.VolumeResourceRequirements{Requests: quantities("storage", "2m"), Limits: quantities("storage", "1m")}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: quantities("storage", "1m"),
					AllocatedResources: quantities("storage", "1Gi")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &appsv1.StatefulSet{}
			in.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{tt.in}
			got := defaulted(t, in, Options{}).Spec.VolumeClaimTemplates[0]
			if diff := cmp.Diff(tt.want, got, byText); diff != "" {
				t.Errorf("claim template (-want +got):\n%s", diff)
			}
		})
	}
}
