package integration

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	setName  = "web"
	imageOld = "registry.k8s.io/nginx-slim:0.8"
	imageNew = "registry.k8s.io/nginx-slim:0.9"

	behaviorKey   = "sim.ordinal.dev/behavior"
	readyDelayKey = "sim.ordinal.dev/ready-delay"
)

type setOption func(*appsv1.StatefulSet)

// webSet is examples/web.yaml's StatefulSet (without its volume claim
// template unless withClaims is given) in namespace ns.
func webSet(ns string, opts ...setOption) *appsv1.StatefulSet {
	grace := int64(10)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: setName, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			ServiceName: "nginx",
			Replicas:    ptr(int32(3)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					Containers: []corev1.Container{{
						Name:  "nginx",
						Image: imageOld,
						Ports: []corev1.ContainerPort{{ContainerPort: 80, Name: "web"}},
					}},
				},
			},
		},
	}
	for _, o := range opts {
		o(set)
	}
	return set
}

func ptr[T any](v T) *T { return &v }

func replicas(n int32) setOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr(n) }
}

func parallel() setOption {
	return func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }
}

func rollingUpdate(s *appsv1.StatefulSet) *appsv1.RollingUpdateStatefulSetStrategy {
	s.Spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
	if s.Spec.UpdateStrategy.RollingUpdate == nil {
		s.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
	}
	return s.Spec.UpdateStrategy.RollingUpdate
}

func partition(n int32) setOption {
	return func(s *appsv1.StatefulSet) { rollingUpdate(s).Partition = ptr(n) }
}

func maxUnavailable(n int) setOption {
	return func(s *appsv1.StatefulSet) { rollingUpdate(s).MaxUnavailable = ptr(intstr.FromInt32(int32(n))) }
}

func onDelete() setOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	}
}

func minReadySeconds(n int32) setOption {
	return func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = n }
}

func ordinalsStart(n int32) setOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: n} }
}

func retention(whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType) setOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: whenDeleted, WhenScaled: whenScaled,
		}
	}
}

func podAnnotation(key, value string) setOption {
	return func(s *appsv1.StatefulSet) {
		if s.Spec.Template.Annotations == nil {
			s.Spec.Template.Annotations = map[string]string{}
		}
		s.Spec.Template.Annotations[key] = value
	}
}

func nodeSelector(key, value string) setOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.NodeSelector = map[string]string{key: value} }
}

// withClaims adds web.yaml's claim template "www" (1Gi, default class)
// and mounts it.
func withClaims() setOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "www"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				},
			},
		}}
		c := &s.Spec.Template.Spec.Containers[0]
		c.VolumeMounts = []corev1.VolumeMount{{Name: "www", MountPath: "/usr/share/nginx/html"}}
	}
}
