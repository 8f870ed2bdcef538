package realnode

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

const appPort = 8080

// namespace creates a namespace for the test, deleted at its end.
func namespace(t *testing.T) (context.Context, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(cancel)
	name := "rn-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 60 {
		name = name[:60]
	}
	name = strings.TrimRight(name, "-")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return ctx, name
}

// onRealNode places a pod spec on the real node: it tolerates the node's
// taint and selects the node by name.
func onRealNode(spec *corev1.PodSpec) {
	spec.NodeSelector = map[string]string{corev1.LabelHostname: realnode.DefaultNodeName}
	spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: realnode.Taint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
}

// appSpec is a pod spec of the test application on the real node, ready
// when its /readyz says so, with args after its own --listen.
func appSpec(args ...string) corev1.PodSpec {
	spec := corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "app", Image: realnode.TestAppImage, ImagePullPolicy: corev1.PullIfNotPresent,
			Args:  append([]string{fmt.Sprintf("--listen=:%d", appPort)}, args...),
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: appPort}},
			ReadinessProbe: &corev1.Probe{
				ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(appPort)}},
				PeriodSeconds: 1, FailureThreshold: 1,
			},
		}},
		TerminationGracePeriodSeconds: ptr.To[int64](5),
	}
	onRealNode(&spec)
	return spec
}

// withData mounts the claim (or claim template) "data" at /data and has
// the application write its marker there.
func withData(spec corev1.PodSpec) corev1.PodSpec {
	c := &spec.Containers[0]
	c.Args = append(c.Args, "--data=/data")
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
	return spec
}

// waitPod polls the pod until cond holds, failing the test after timeout
// with the pod's last state.
func waitPod(ctx context.Context, t *testing.T, ns, name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s: %s: %v; last status: %s", ns, name, what, err, describe(last))
	}
	return last
}

func describe(p *corev1.Pod) string {
	if p == nil {
		return "none"
	}
	raw, _ := json.Marshal(p.Status)
	return fmt.Sprintf("node %q, %s", p.Spec.NodeName, raw)
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// AppStatus is what the test application answers on GET /.
type AppStatus struct {
	Version string    `json:"version"`
	Pod     string    `json:"pod"`
	Started time.Time `json:"started"`
	Ready   bool      `json:"ready"`
	Marker  string    `json:"marker"`
	Starts  int       `json:"starts"`
	Cgroup  struct {
		Version     int   `json:"version"`
		CPUQuotaUS  int64 `json:"cpuQuotaMicros"`
		CPUPeriodUS int64 `json:"cpuPeriodMicros"`
		MemoryBytes int64 `json:"memoryBytes"`
	} `json:"cgroup"`
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

// appURL is the pod's application address, reached from the host over the
// node's bridge.
func appURL(p *corev1.Pod, path string) string {
	return "http://" + net.JoinHostPort(p.Status.PodIP, fmt.Sprint(appPort)) + path
}

// status asks the pod's application for its status, retrying briefly.
func status(ctx context.Context, t *testing.T, p *corev1.Pod) AppStatus {
	t.Helper()
	var st AppStatus
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		resp, err := httpClient.Get(appURL(p, "/"))
		if err != nil {
			last = err
			return false, nil
		}
		defer resp.Body.Close()
		last = json.NewDecoder(resp.Body).Decode(&st)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("asking %s for its status: %v (%v)", p.Name, err, last)
	}
	return st
}

// post sends a command to the pod's application.
func post(t *testing.T, p *corev1.Pod, path string) {
	t.Helper()
	resp, err := httpClient.Post(appURL(p, path), "text/plain", nil)
	if err != nil {
		t.Fatalf("POST %s to %s: %v", path, p.Name, err)
	}
	_ = resp.Body.Close()
}

// waitGone waits until the pod no longer exists.
func waitGone(ctx context.Context, t *testing.T, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s still exists: %v", ns, name, err)
	}
}
