package testgen

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// PodOption changes a pod being built.
type PodOption func(*corev1.Pod)

// Pod returns the pod <set>-<ordinal> as it looks once created by the set's
// controller: identity labels, owner reference, hostname, claim volumes, and
// by default Running and Ready since Epoch. It carries no revision label
// unless Revision or At is given, because which revision a pod runs is what
// most tests are about.
func Pod(set *appsv1.StatefulSet, ordinal int32, opts ...PodOption) *corev1.Pod {
	name := fmt.Sprintf("%s-%d", set.Name, ordinal)
	labels := map[string]string{
		appsv1.StatefulSetPodNameLabel: name,
		appsv1.PodIndexLabel:           strconv.Itoa(int(ordinal)),
	}
	for k, v := range set.Spec.Template.Labels {
		labels[k] = v
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: set.Namespace, UID: types.UID("uid-" + name),
			GenerateName: set.Name + "-", Labels: labels,
			CreationTimestamp: metav1.NewTime(Epoch),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "StatefulSet", Name: set.Name, UID: set.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: *set.Spec.Template.Spec.DeepCopy(),
	}
	pod.Spec.Hostname, pod.Spec.Subdomain = name, set.Spec.ServiceName
	for _, t := range set.Spec.VolumeClaimTemplates {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name: t.Name,
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
				ClaimName: fmt.Sprintf("%s-%s-%d", t.Name, set.Name, ordinal),
			}},
		})
	}
	Ready(Epoch)(pod)
	for _, opt := range opts {
		opt(pod)
	}
	return pod
}

// Revision labels the pod with the revision name it was created from.
func Revision(name string) PodOption {
	return func(p *corev1.Pod) { p.Labels[appsv1.StatefulSetRevisionLabel] = name }
}

// At labels the pod with rev's name.
func At(rev *appsv1.ControllerRevision) PodOption {
	return Revision(rev.Name)
}

// Ready makes the pod Running with Ready=True since the given time.
func Ready(since time.Time) PodOption {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{readyCondition(corev1.ConditionTrue, since)}
	}
}

// NotReady makes the pod Running with Ready=False since the given time,
// like a pod whose readiness probe fails.
func NotReady(since time.Time) PodOption {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{readyCondition(corev1.ConditionFalse, since)}
	}
}

// Pending makes the pod Pending with no conditions, as it is right after
// creation or while it cannot be scheduled.
func Pending() PodOption {
	return phase(corev1.PodPending)
}

// Failed makes the pod Failed (evicted, or its containers exited non-zero).
func Failed() PodOption {
	return phase(corev1.PodFailed)
}

// Succeeded makes the pod Succeeded (its containers exited zero).
func Succeeded() PodOption {
	return phase(corev1.PodSucceeded)
}

// NoPhase clears status.phase, which the controller reads as "not created".
func NoPhase() PodOption {
	return phase("")
}

func phase(ph corev1.PodPhase) PodOption {
	return func(p *corev1.Pod) {
		p.Status.Phase = ph
		p.Status.Conditions = nil
	}
}

// Terminating marks the pod as being deleted at the given time with a 30s
// grace period, so its deletionTimestamp is 30s later.
func Terminating(at time.Time) PodOption {
	return func(p *corev1.Pod) {
		p.DeletionTimestamp = ptr.To(metav1.NewTime(at.Add(30 * time.Second)))
		p.DeletionGracePeriodSeconds = ptr.To[int64](30)
	}
}

// CreatedAt sets the pod's creationTimestamp.
func CreatedAt(at time.Time) PodOption {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(at) }
}

// PodLabel sets or, with an empty value, removes a label.
func PodLabel(key, value string) PodOption {
	return func(p *corev1.Pod) {
		if value == "" {
			delete(p.Labels, key)
			return
		}
		p.Labels[key] = value
	}
}

// Named renames the pod (for pods with odd names).
func Named(name string) PodOption {
	return func(p *corev1.Pod) { p.Name, p.UID = name, types.UID("uid-"+name) }
}

// NoVolumes removes the pod's volumes (a pod whose storage does not match).
func NoVolumes() PodOption {
	return func(p *corev1.Pod) { p.Spec.Volumes = nil }
}

func readyCondition(status corev1.ConditionStatus, since time.Time) corev1.PodCondition {
	return corev1.PodCondition{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(since)}
}
