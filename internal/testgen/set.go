package testgen

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Namespace is where every built object lives.
const Namespace = "default"

// Epoch is the fixed instant tests measure time from, so plans that depend
// on "now" are reproducible.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// SetOption changes a StatefulSet being built.
type SetOption func(*appsv1.StatefulSet)

// StatefulSet returns a set named name with every field the API server
// defaults filled in, as one with the MaxUnavailableStatefulSet gate on
// (ordinal up's) does: one replica, OrderedReady, RollingUpdate with
// partition 0 and maxUnavailable 1, history limit 10, Retain/Retain claim
// retention, and a one-container template labelled app=<name>.
func StatefulSet(name string, opts ...SetOption) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	set := &appsv1.StatefulSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: Namespace, UID: types.UID("uid-" + name),
			Generation: 1, CreationTimestamp: metav1.NewTime(Epoch),
		},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To[int32](1),
			Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template:            template(labels),
			ServiceName:         name,
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type:          appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: newRollingUpdate(),
			},
			RevisionHistoryLimit: ptr.To[int32](10),
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			},
		},
	}
	for _, opt := range opts {
		opt(set)
	}
	return set
}

// template is a defaulted single-container pod template.
func template(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:                     "app",
				Image:                    "registry.example/app:1",
				ImagePullPolicy:          corev1.PullIfNotPresent,
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			DNSPolicy:                     corev1.DNSClusterFirst,
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
		},
	}
}

// Replicas sets spec.replicas.
func Replicas(n int32) SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To(n) }
}

// Parallel sets podManagementPolicy Parallel.
func Parallel() SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }
}

// OnDelete sets the OnDelete update strategy (which validation requires to
// have no rollingUpdate block).
func OnDelete() SetOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	}
}

// Recreate sets the Recreate update strategy (upstream 1.37's alpha,
// without a rollingUpdate block).
func Recreate() SetOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RecreateStatefulSetStrategyType}
	}
}

// NoRollingUpdate leaves updateStrategy.rollingUpdate nil under type
// RollingUpdate, which is what defaulting produces when a user writes the
// type without the block.
func NoRollingUpdate() SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate = nil }
}

// Partition sets updateStrategy.rollingUpdate.partition.
func Partition(p int32) SetOption {
	return func(s *appsv1.StatefulSet) { rollingUpdate(s).Partition = ptr.To(p) }
}

// MaxUnavailable sets updateStrategy.rollingUpdate.maxUnavailable to an
// integer.
func MaxUnavailable(n int32) SetOption {
	return func(s *appsv1.StatefulSet) { rollingUpdate(s).MaxUnavailable = ptr.To(intstr.FromInt32(n)) }
}

// MaxUnavailablePercent sets updateStrategy.rollingUpdate.maxUnavailable to
// a percentage such as "25%".
func MaxUnavailablePercent(p string) SetOption {
	return func(s *appsv1.StatefulSet) { rollingUpdate(s).MaxUnavailable = ptr.To(intstr.FromString(p)) }
}

// GateOff leaves maxUnavailable out of updateStrategy.rollingUpdate, as an
// API server with the MaxUnavailableStatefulSet gate off (the default from 1.35.4
// to 1.36) defaults a set.
func GateOff() SetOption {
	return func(s *appsv1.StatefulSet) {
		if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			ru.MaxUnavailable = nil
		}
	}
}

func newRollingUpdate() *appsv1.RollingUpdateStatefulSetStrategy {
	return &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0), MaxUnavailable: ptr.To(intstr.FromInt32(1))}
}

func rollingUpdate(s *appsv1.StatefulSet) *appsv1.RollingUpdateStatefulSetStrategy {
	if s.Spec.UpdateStrategy.RollingUpdate == nil {
		s.Spec.UpdateStrategy.RollingUpdate = newRollingUpdate()
	}
	return s.Spec.UpdateStrategy.RollingUpdate
}

// Start sets spec.ordinals.start.
func Start(n int32) SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: n} }
}

// MinReadySeconds sets spec.minReadySeconds.
func MinReadySeconds(n int32) SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = n }
}

// Image sets the image of the template's only container; changing it is
// the usual way to make a new revision.
func Image(image string) SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image }
}

// ClaimTemplates adds one volumeClaimTemplate per name, each asking for 1Gi
// and labelled tier=storage.
func ClaimTemplates(names ...string) SetOption {
	return func(s *appsv1.StatefulSet) {
		for _, name := range names {
			s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, corev1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"tier": "storage"}},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
					},
				},
			})
		}
	}
}

// Retention sets the claim retention policy.
func Retention(whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType) SetOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: whenDeleted, WhenScaled: whenScaled,
		}
	}
}

// Deleting marks the set as being deleted.
func Deleting(at time.Time) SetOption {
	return func(s *appsv1.StatefulSet) { s.DeletionTimestamp = ptr.To(metav1.NewTime(at)) }
}

// Generation sets metadata.generation.
func Generation(g int64) SetOption {
	return func(s *appsv1.StatefulSet) { s.Generation = g }
}

// HistoryLimit sets spec.revisionHistoryLimit.
func HistoryLimit(n int32) SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.RevisionHistoryLimit = ptr.To(n) }
}

// Annotation sets an annotation on the set itself.
func Annotation(key, value string) SetOption {
	return func(s *appsv1.StatefulSet) { s.Annotations = setKey(s.Annotations, key, value) }
}

// TemplateAnnotation sets an annotation on the pod template.
func TemplateAnnotation(key, value string) SetOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.Template.Annotations = setKey(s.Spec.Template.Annotations, key, value)
	}
}

// Status replaces parts of the set's status, e.g. the revisions or the
// currentReplicas the rollingUpdate==nil quirk reads.
func Status(change func(*appsv1.StatefulSetStatus)) SetOption {
	return func(s *appsv1.StatefulSet) { change(&s.Status) }
}

func setKey(m map[string]string, key, value string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[key] = value
	return m
}
