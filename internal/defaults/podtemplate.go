package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// PodTemplate fills in, in place, the defaults the API server gives the pod
// template of a workload (a StatefulSet's spec.template, or one restored
// from a ControllerRevision): the pod spec, every container, init container
// and ephemeral container, and every volume. It adds none of the defaults
// that only a Pod object gets (requests copied from limits, service links,
// host ports under host networking, pod-level requests). A nil template is
// left alone.
func PodTemplate(t *corev1.PodTemplateSpec) {
	if t == nil {
		return
	}
	spec := &t.Spec
	podSpec(spec)
	for i := range spec.Volumes {
		volume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		container(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		container(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		container((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUp(spec.Overhead)
	if spec.Resources != nil {
		roundUp(spec.Resources.Limits)
		roundUp(spec.Resources.Requests)
	}
}

// podSpec defaults the pod-level fields: DNS and restart policy, an empty
// security context, a 30 s grace period and the default scheduler.
func podSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	// serviceAccount is the deprecated alias of serviceAccountName: 1.37
	// keeps the two equal when it defaults (serviceAccountName wins), as
	// conversion did before, so the stored object is the same either way.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
}
