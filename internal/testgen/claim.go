package testgen

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// ClaimOption changes a claim being built.
type ClaimOption func(*corev1.PersistentVolumeClaim)

// Claim returns the claim <template>-<set>-<ordinal> as the controller
// created it: the template's spec, the template's labels merged with the
// selector's, and no owner references.
func Claim(set *appsv1.StatefulSet, template string, ordinal int32, opts ...ClaimOption) *corev1.PersistentVolumeClaim {
	name := fmt.Sprintf("%s-%s-%d", template, set.Name, ordinal)
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: set.Namespace, UID: types.UID("uid-" + name),
			Labels: map[string]string{},
		},
	}
	for _, t := range set.Spec.VolumeClaimTemplates {
		if t.Name == template {
			claim.Spec = *t.Spec.DeepCopy()
			for k, v := range t.Labels {
				claim.Labels[k] = v
			}
		}
	}
	for k, v := range set.Spec.Selector.MatchLabels {
		claim.Labels[k] = v
	}
	for _, opt := range opts {
		opt(claim)
	}
	return claim
}

// OwnedBySet adds a controller reference to set, as the Delete whenDeleted
// policy makes.
func OwnedBySet(set *appsv1.StatefulSet) ClaimOption {
	return OwnerRef(ControllerRef("apps/v1", "StatefulSet", set.Name, set.UID))
}

// OwnedByPod adds a controller reference to pod, as the Delete whenScaled
// policy makes for condemned pods.
func OwnedByPod(pod *corev1.Pod) ClaimOption {
	return OwnerRef(ControllerRef("v1", "Pod", pod.Name, pod.UID))
}

// OwnerRef adds an arbitrary owner reference.
func OwnerRef(ref metav1.OwnerReference) ClaimOption {
	return func(c *corev1.PersistentVolumeClaim) { c.OwnerReferences = append(c.OwnerReferences, ref) }
}

// ClaimDeleting marks the claim as being deleted (held by the
// kubernetes.io/pvc-protection finalizer while a pod uses it).
func ClaimDeleting(at time.Time) ClaimOption {
	return func(c *corev1.PersistentVolumeClaim) {
		c.DeletionTimestamp = ptr.To(metav1.NewTime(at))
		c.Finalizers = []string{"kubernetes.io/pvc-protection"}
	}
}

// ControllerRef is a controller owner reference with blockOwnerDeletion, as
// metav1.NewControllerRef builds it.
func ControllerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: name, UID: uid,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}

// Claims indexes claims by name, the shape planner.Input wants.
func Claims(claims ...*corev1.PersistentVolumeClaim) map[string]*corev1.PersistentVolumeClaim {
	m := make(map[string]*corev1.PersistentVolumeClaim, len(claims))
	for _, c := range claims {
		m[c.Name] = c
	}
	return m
}
