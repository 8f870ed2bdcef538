package realnode

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// stopTime creates the pod, waits until it is Ready, deletes it and
// returns how long it took to be gone.
func stopTime(ctx context.Context, t *testing.T, ns string, p *corev1.Pod) time.Duration {
	t.Helper()
	if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(ctx, t, ns, p.Name, 2*time.Minute, "Ready", ready)
	began := time.Now()
	if err := client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(ctx, t, ns, p.Name)
	return time.Since(began)
}

// A container that ignores SIGTERM is killed at the end of its grace
// period, on either node; one that exits at once is gone well before it.
func TestTerminationHonoursTheGracePeriodAsTheRealKubeletDoes(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	for _, s := range sides {
		spec := appSpec("--ignore-sigterm")
		spec.TerminationGracePeriodSeconds = ptr.To[int64](4)
		// The simulated container "ignores" SIGTERM by taking longer than
		// its grace period to stop.
		took := stopTime(ctx, t, ns, placed(s, "stubborn", spec, map[string]string{nodes.AnnotationStopDelay: "1m"}))
		if took < 3500*time.Millisecond || took > 15*time.Second {
			t.Errorf("%s node: a container ignoring SIGTERM with a 4 s grace period was gone after %s", s.name, took.Round(time.Millisecond))
		}
		// A container that exits on SIGTERM is gone long before its grace
		// period ends (a real kubelet takes about 3 s to tear the pod down
		// here, the simulated node none).
		promptSpec := appSpec()
		promptSpec.TerminationGracePeriodSeconds = ptr.To[int64](30)
		prompt := stopTime(ctx, t, ns, placed(s, "prompt", promptSpec, nil))
		if prompt > 15*time.Second {
			t.Errorf("%s node: a container exiting on SIGTERM with a 30 s grace period was gone after %s", s.name, prompt.Round(time.Millisecond))
		}
		t.Logf("%s node: stubborn gone after %s, prompt after %s", s.name, took.Round(time.Millisecond), prompt.Round(time.Millisecond))
	}
}

// A preStop hook runs before SIGTERM, inside the grace period: a sleep
// action of 3 s delays the stop of a container that exits at once.
func TestAPreStopHookDelaysTheStopAsTheRealKubeletDoes(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	for _, s := range sides {
		spec := appSpec()
		spec.TerminationGracePeriodSeconds = ptr.To[int64](20)
		spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 3}}}
		took := stopTime(ctx, t, ns, placed(s, "prestop", spec, nil))
		if took < 2500*time.Millisecond || took > 12*time.Second {
			t.Errorf("%s node: a pod with a 3 s preStop sleep was gone after %s", s.name, took.Round(time.Millisecond))
		}
		t.Logf("%s node: gone after %s", s.name, took.Round(time.Millisecond))
	}
}
