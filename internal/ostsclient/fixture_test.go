package ostsclient

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// since is a time the API round-trips exactly (whole seconds, UTC).
var since = metav1.NewTime(time.Date(2026, 11, 22, 4, 45, 37, 0, time.UTC))

// fullSet is a set with every field of the kind's own types set, and the
// embedded core types represented by a template with a port, a claim
// template with a quantity and a selector expression.
func fullSet(namespace, name string) *v1alpha1.StatefulSet {
	labels := map[string]string{"app": name}
	return &v1alpha1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels, Annotations: map[string]string{"note": "full"}},
		Spec: v1alpha1.StatefulSetSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels, MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"cache"}}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"sim.ordinal.dev/behavior": "ready"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "registry.k8s.io/nginx-slim:0.8",
					Ports: []corev1.ContainerPort{{Name: "web", ContainerPort: 80, Protocol: corev1.ProtocolTCP}}}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "www"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
			}},
			ServiceName:          "nginx",
			PodManagementPolicy:  "Parallel",
			RevisionHistoryLimit: ptr.To[int32](4),
			MinReadySeconds:      5,
			UpdateStrategy: v1alpha1.StatefulSetUpdateStrategy{
				Type: v1alpha1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &v1alpha1.RollingUpdateStatefulSetStrategy{
					Partition: ptr.To[int32](1), MaxUnavailable: ptr.To(intstr.FromString("50%")), Paused: true,
					SelfHealing: v1alpha1.SelfHealingDisabled, OnFailure: v1alpha1.FailureRollback,
				},
			},
			PersistentVolumeClaimRetentionPolicy: &v1alpha1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Delete", WhenScaled: "Retain"},
			Ordinals:                             &v1alpha1.StatefulSetOrdinals{Start: 2},
			ProgressDeadlineSeconds:              ptr.To[int32](120),
		},
		Status: v1alpha1.StatefulSetStatus{
			ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 2, CurrentReplicas: 1, UpdatedReplicas: 2, AvailableReplicas: 2,
			UpdatedReadyReplicas: 1, UpdatedAvailableReplicas: 1,
			CurrentRevision: name + "-a", UpdateRevision: name + "-b", LastCompletedRevision: name + "-a",
			CollisionCount: ptr.To[int32](1), LabelSelector: "app=" + name,
			Conditions: []metav1.Condition{{Type: v1alpha1.ConditionProgressing, Status: metav1.ConditionFalse, ObservedGeneration: 2,
				LastTransitionTime: since, Reason: "ProgressDeadlineExceeded", Message: "no progress for 120s"}},
			BlockedBy: []v1alpha1.BlockedPod{{Pod: name + "-4", Revision: name + "-b", Reason: "ImagePullBackOff",
				Message: "image not found", Permanent: true, Since: since}},
			Rollback: &v1alpha1.RollbackRecord{From: name + "-b", To: name + "-a", Reason: "ProgressDeadlineExceeded", Time: since},
		},
	}
}
