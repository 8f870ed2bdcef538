package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestStatefulSetDefaultsThePodSpec(t *testing.T) {
	tests := []struct {
		name string
		in   func(*corev1.PodSpec)
		want func(*corev1.PodSpec)
	}{
		{"an empty pod spec gets DNS, restart, security, grace period and scheduler defaults",
			func(*corev1.PodSpec) {},
			func(s *corev1.PodSpec) {
				s.DNSPolicy, s.RestartPolicy, s.SchedulerName = corev1.DNSClusterFirst, corev1.RestartPolicyAlways, "default-scheduler"
				s.SecurityContext, s.TerminationGracePeriodSeconds = &corev1.PodSecurityContext{}, ptr.To[int64](30)
			}},
		{"given values are kept, a zero grace period included",
			func(s *corev1.PodSpec) {
				s.DNSPolicy, s.RestartPolicy, s.SchedulerName = corev1.DNSNone, corev1.RestartPolicyNever, "mine"
				s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1000)}
				s.TerminationGracePeriodSeconds = ptr.To[int64](0)
			},
			func(s *corev1.PodSpec) {
				s.DNSPolicy, s.RestartPolicy, s.SchedulerName = corev1.DNSNone, corev1.RestartPolicyNever, "mine"
				s.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](1000)}
				s.TerminationGracePeriodSeconds = ptr.To[int64](0)
			}},
		{"host networking gives no host ports (a Pod-only default)",
			func(s *corev1.PodSpec) {
				s.HostNetwork = true
				s.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80}}
			},
			func(s *corev1.PodSpec) {
				s.HostNetwork = true
				s.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
			}},
		{"overhead and pod-level resources are rounded, and pod requests are not filled from limits",
			func(s *corev1.PodSpec) {
				s.Overhead = quantities("cpu", "0.0001")
				s.Resources = &corev1.ResourceRequirements{Limits: quantities("cpu", "1500u", "memory", "1Gi")}
			},
			func(s *corev1.PodSpec) {
				s.Overhead = quantities("cpu", "1m")
				s.Resources = &corev1.ResourceRequirements{Limits: quantities("cpu", "2m", "memory", "1Gi")}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, want := podWith(bareContainer()), podWith(defaultedContainer())
			tt.in(&in)
			want.DNSPolicy, want.RestartPolicy, want.SchedulerName = corev1.DNSClusterFirst, corev1.RestartPolicyAlways, "default-scheduler"
			want.SecurityContext, want.TerminationGracePeriodSeconds = &corev1.PodSecurityContext{}, ptr.To[int64](30)
			tt.want(&want)
			got := defaulted(t, setWithPod(in), Options{}).Spec.Template.Spec
			if diff := cmp.Diff(want, got, byText); diff != "" {
				t.Errorf("pod spec (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodTemplateDefaultsTheTemplateAlone(t *testing.T) {
	t.Run("a template gets the same defaults as inside a set", func(t *testing.T) {
		spec := podWith(bareContainer())
		spec.Volumes = []corev1.Volume{{Name: "scratch"}}
		set := defaulted(t, setWithPod(spec), Options{})
		template := corev1.PodTemplateSpec{Spec: *spec.DeepCopy()}
		PodTemplate(&template)
		if diff := cmp.Diff(set.Spec.Template, template); diff != "" {
			t.Errorf("PodTemplate (-in a set +alone):\n%s", diff)
		}
	})
	t.Run("a nil template is left alone", func(t *testing.T) {
		PodTemplate(nil)
	})
}
