package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// container defaults one container (an ephemeral container is converted to
// a Container by its caller, as the two share their fields): pull policy
// from the image, termination message, port protocols, environment
// references, resource rounding, probes and lifecycle hooks.
func container(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		envSource(c.Env[i].ValueFrom)
	}
	roundUp(c.Resources.Limits)
	roundUp(c.Resources.Requests)
	probe(c.LivenessProbe)
	probe(c.ReadinessProbe)
	probe(c.StartupProbe)
	if c.Lifecycle != nil {
		lifecycleHandler(c.Lifecycle.PostStart)
		lifecycleHandler(c.Lifecycle.PreStop)
	}
}

// envSource defaults a field reference's API version to v1 and makes a
// file key reference required unless it says otherwise.
func envSource(src *corev1.EnvVarSource) {
	if src == nil {
		return
	}
	fieldRef(src.FieldRef)
	if src.FileKeyRef != nil && src.FileKeyRef.Optional == nil {
		src.FileKeyRef.Optional = ptr.To(false)
	}
}

// fieldRef defaults a downward API field reference's API version to v1.
func fieldRef(ref *corev1.ObjectFieldSelector) {
	if ref != nil && ref.APIVersion == "" {
		ref.APIVersion = "v1"
	}
}

// probe defaults a probe's timing (1 s timeout, 10 s period), thresholds
// (1 success, 3 failures) and its handler.
func probe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	httpGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

// lifecycleHandler defaults a postStart or preStop hook; only its HTTP
// action has defaults.
func lifecycleHandler(h *corev1.LifecycleHandler) {
	if h != nil {
		httpGet(h.HTTPGet)
	}
}

// httpGet defaults an HTTP action to path "/" over plain HTTP.
func httpGet(a *corev1.HTTPGetAction) {
	if a == nil {
		return
	}
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = corev1.URISchemeHTTP
	}
}
