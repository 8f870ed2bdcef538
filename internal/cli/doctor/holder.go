package doctor

import (
	"context"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// holderPod is the pod holding the Lease, if it is one: leader election
// names the holder "<hostname>_<uuid>", and a pod's hostname is its name.
// Nil when the holder is no pod in the Lease's namespace or cannot be read.
func (d *Doctor) holderPod(ctx context.Context, lease *coordinationv1.Lease) *corev1.Pod {
	if lease == nil {
		return nil
	}
	name, _, ok := strings.Cut(holder(lease), "_")
	if !ok || name == "" {
		return nil
	}
	pod, err := d.client.CoreV1().Pods(lease.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil || pod.Spec.ServiceAccountName == "" {
		return nil
	}
	return pod
}

// namespaceFlag is the controller's --namespace, the one namespace it
// manages; empty for all.
func namespaceFlag(p *corev1.Pod) string {
	v, _ := flagValue(p, "namespace")
	return v
}

// secureMetricsFlags reports whether the pod's controller serves /metrics
// securely: an address (127.0.0.1:8080 unless --metrics-address says
// otherwise, empty turning metrics off) and --metrics-secure, which is on
// unless false.
func secureMetricsFlags(p *corev1.Pod) bool {
	if addr, ok := flagValue(p, "metrics-address"); ok && addr == "" {
		return false
	}
	secure, ok := flagValue(p, "metrics-secure")
	return !ok || secure != "false"
}

// flagValue finds --name=value or --name value among the arguments of the
// pod's containers.
func flagValue(p *corev1.Pod, name string) (string, bool) {
	for _, c := range p.Spec.Containers {
		args := append(append([]string{}, c.Command...), c.Args...)
		for i, a := range args {
			if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
				return v, true
			}
			if a == "--"+name && i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return "", false
}
