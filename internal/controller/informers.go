package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// stripForCache drops what the controller never reads before an object
// enters the informer cache: managed fields on everything, and the bulky
// parts of a pod's status. It keeps every field the planner, the status and
// the ownership logic look at. With thousands of pods this is most of the
// cache's memory.
func stripForCache(obj any) (any, error) {
	if acc, err := meta.Accessor(obj); err == nil {
		acc.SetManagedFields(nil)
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		stripPod(o)
	case *corev1.PersistentVolumeClaim:
		o.Status = corev1.PersistentVolumeClaimStatus{Phase: o.Status.Phase}
	case *appsv1.StatefulSet, *appsv1.ControllerRevision:
	}
	return obj, nil
}

// stripPod keeps the pod's spec (templates are compared through revisions,
// not pod specs, but storage and identity checks read volumes, hostname and
// subdomain) and only the status the planner reads: phase, conditions and
// container states for explanations.
func stripPod(p *corev1.Pod) {
	p.Status.InitContainerStatuses = nil
	p.Status.EphemeralContainerStatuses = nil
	p.Status.PodIPs = nil
	p.Status.HostIPs = nil
	p.Status.ResourceClaimStatuses = nil
	for i := range p.Status.ContainerStatuses {
		cs := &p.Status.ContainerStatuses[i]
		cs.ImageID, cs.ContainerID = "", ""
		cs.AllocatedResources, cs.Resources, cs.VolumeMounts, cs.User = nil, nil, nil, nil
		cs.AllocatedResourcesStatus = nil
	}
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		c.Env, c.EnvFrom, c.Command, c.Args = nil, nil, nil, nil
		c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Lifecycle = nil, nil, nil, nil
	}
}

var _ cache.TransformFunc = stripForCache
