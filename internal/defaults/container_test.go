package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// containerCase is a change to bareContainer and the matching change to
// defaultedContainer.
type containerCase struct {
	name string
	in   func(*corev1.Container)
	want func(*corev1.Container)
}

// containerCases are the container rules; each is checked on containers,
// init containers and ephemeral containers.
var containerCases = []containerCase{
	{"a bare container gets a pull policy and the termination message defaults",
		func(*corev1.Container) {}, func(*corev1.Container) {}},
	{"an image without a tag is pulled always",
		func(c *corev1.Container) { c.Image = "nginx" },
		func(c *corev1.Container) { c.Image, c.ImagePullPolicy = "nginx", corev1.PullAlways }},
	{"an image tagged latest is pulled always",
		func(c *corev1.Container) { c.Image = "nginx:latest" },
		func(c *corev1.Container) { c.Image, c.ImagePullPolicy = "nginx:latest", corev1.PullAlways }},
	{"an image by digest is pulled if not present",
		func(c *corev1.Container) { c.Image = "nginx@sha256:" + hex(64) },
		func(c *corev1.Container) { c.Image = "nginx@sha256:" + hex(64) }},
	{"a given pull policy and termination message are kept",
		func(c *corev1.Container) {
			c.Image, c.ImagePullPolicy = "nginx", corev1.PullNever
			c.TerminationMessagePath, c.TerminationMessagePolicy = "/tmp/x", corev1.TerminationMessageFallbackToLogsOnError
		},
		func(c *corev1.Container) {
			c.Image, c.ImagePullPolicy = "nginx", corev1.PullNever
			c.TerminationMessagePath, c.TerminationMessagePolicy = "/tmp/x", corev1.TerminationMessageFallbackToLogsOnError
		}},
	{"a port without a protocol is TCP, a UDP port stays UDP",
		func(c *corev1.Container) {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}}
		},
		func(c *corev1.Container) {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}}
		}},
	{"an env field reference is to v1 and a file key reference is required",
		func(c *corev1.Container) {
			c.Env = []corev1.EnvVar{fieldEnv(""), fileKeyEnv(nil), {Name: "PLAIN", Value: "x"}}
		},
		func(c *corev1.Container) {
			c.Env = []corev1.EnvVar{fieldEnv("v1"), fileKeyEnv(ptr.To(false)), {Name: "PLAIN", Value: "x"}}
		}},
	{"limits and requests are rounded up to milli-units and requests are not copied from limits",
		func(c *corev1.Container) {
			c.Resources.Limits = quantities("cpu", "1500u", "memory", "128Mi")
			c.Resources.Requests = quantities("cpu", "0.0001")
		},
		func(c *corev1.Container) {
			c.Resources.Limits = quantities("cpu", "2m", "memory", "128Mi")
			c.Resources.Requests = quantities("cpu", "1m")
		}},
	{"a probe gets timeout 1, period 10, thresholds 1 and 3, and its HTTP action path / over HTTP",
		func(c *corev1.Container) { c.LivenessProbe = httpProbe(0, 0, 0, 0, "", "") },
		func(c *corev1.Container) { c.LivenessProbe = httpProbe(1, 10, 1, 3, "/", corev1.URISchemeHTTP) }},
	{"a probe keeps its own timing and action",
		func(c *corev1.Container) { c.ReadinessProbe = httpProbe(5, 2, 2, 9, "/ready", corev1.URISchemeHTTPS) },
		func(c *corev1.Container) { c.ReadinessProbe = httpProbe(5, 2, 2, 9, "/ready", corev1.URISchemeHTTPS) }},
	{"a gRPC startup probe gets the empty service name",
		func(c *corev1.Container) {
			c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}}
		},
		func(c *corev1.Container) {
			c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000, Service: ptr.To("")}},
				TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
		}},
	{"lifecycle hooks' HTTP actions get path and scheme, other actions nothing",
		func(c *corev1.Container) {
			c.Lifecycle = &corev1.Lifecycle{
				PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}},
				PreStop:   &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}}
		},
		func(c *corev1.Container) {
			c.Lifecycle = &corev1.Lifecycle{
				PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80), Scheme: corev1.URISchemeHTTP}},
				PreStop:   &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 5}}}
		}},
}

func TestStatefulSetDefaultsContainers(t *testing.T) {
	for _, kind := range []string{"container", "init container", "ephemeral container"} {
		for _, tt := range containerCases {
			t.Run(kind+": "+tt.name, func(t *testing.T) {
				in, want := bareContainer(), defaultedContainer()
				tt.in(&in)
				tt.want(&want)
				got := defaultedAs(t, kind, in)
				if diff := cmp.Diff(want, got, byText); diff != "" {
					t.Errorf("%s (-want +got):\n%s", kind, diff)
				}
			})
		}
	}
}

// defaultedAs defaults c as a container of the given kind in a set and
// returns it.
func defaultedAs(t *testing.T, kind string, c corev1.Container) corev1.Container {
	t.Helper()
	spec := podWith(bareContainer())
	switch kind {
	case "init container":
		spec.InitContainers = []corev1.Container{c}
	case "ephemeral container":
		spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(c)}}
	default:
		spec.Containers = []corev1.Container{c}
	}
	got := defaulted(t, setWithPod(spec), Options{}).Spec.Template.Spec
	switch kind {
	case "init container":
		return got.InitContainers[0]
	case "ephemeral container":
		return corev1.Container(got.EphemeralContainers[0].EphemeralContainerCommon)
	}
	return got.Containers[0]
}

// fieldEnv is a variable from the pod's name with the given API version.
func fieldEnv(apiVersion string) corev1.EnvVar {
	return corev1.EnvVar{Name: "POD", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: apiVersion, FieldPath: "metadata.name"}}}
}

// fileKeyEnv is a variable from a key of an env file.
func fileKeyEnv(optional *bool) corev1.EnvVar {
	return corev1.EnvVar{Name: "KEY", ValueFrom: &corev1.EnvVarSource{
		FileKeyRef: &corev1.FileKeySelector{VolumeName: "env", Path: "app.env", Key: "KEY", Optional: optional}}}
}

// httpProbe is an HTTP probe on port 80 with the given timing and action.
func httpProbe(timeout, period, success, failure int32, path string, scheme corev1.URIScheme) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:   corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(80), Scheme: scheme}},
		TimeoutSeconds: timeout, PeriodSeconds: period, SuccessThreshold: success, FailureThreshold: failure,
	}
}
