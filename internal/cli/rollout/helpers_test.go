package rollout_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
)

const (
	imageOld    = "registry.k8s.io/nginx-slim:0.8"
	imageNew    = "registry.k8s.io/nginx-slim:0.9"
	behaviorKey = "sim.ordinal.dev/behavior"
)

// result is one command's outcome.
type result struct {
	out, err string
	code     int
}

// ordinal runs the command in process against the plane, in ns.
func ordinal(t *testing.T, ns string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append(args, "--kubeconfig", kubeconfig, "-n", ns)
	code := root.Main(args, &out, &errOut)
	t.Logf("$ ordinal %s  => exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return result{out.String(), errOut.String(), code}
}

// kubectl runs the real kubectl (v1.32 in PATH) against the plane, in ns.
func kubectl(t *testing.T, ns string, args ...string) result {
	t.Helper()
	return runProcess(t, os.Environ(), "kubectl", append(args, "--kubeconfig", kubeconfig, "-n", ns)...)
}

func runProcess(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", name, err)
	}
	t.Logf("$ %s %s  => exit %d\n%s%s", name, strings.Join(args, " "), code, out.String(), errOut.String())
	return result{out.String(), errOut.String(), code}
}

// mustSucceed fails the test unless r exited 0.
func (r result) mustSucceed(t *testing.T) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", r.code, r.err)
	}
	return r
}

// namespace creates a fresh namespace for one test. If the test fails,
// the namespace's events (the controllers' creates and deletes among
// them) are logged before it goes.
func namespace(t *testing.T) string {
	t.Helper()
	name := "rollout-" + rand.String(6)
	_, err := client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logEvents(t, name)
		}
		_ = client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// logEvents logs ns's events, oldest first.
func logEvents(t *testing.T, ns string) {
	events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Logf("listing the events of %s: %v", ns, err)
		return
	}
	items := events.Items
	slices.SortStableFunc(items, func(a, b corev1.Event) int { return a.LastTimestamp.Compare(b.LastTimestamp.Time) })
	for _, e := range items {
		t.Logf("event %s %s %s/%s %s: %s (x%d)", e.LastTimestamp.Format("15:04:05"), e.Type,
			e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message, e.Count)
	}
}

type setOption func(*appsv1.StatefulSet)

// createWeb creates webSet's set in ns and waits until its rollout is
// complete.
func createWeb(t *testing.T, ns string, opts ...setOption) *appsv1.StatefulSet {
	t.Helper()
	created, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), webSet(ns, opts...), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitComplete(t, ns)
	return created
}

// webSet is examples/web.yaml's set (3 replicas, OrderedReady) in ns.
func webSet(ns string, opts ...setOption) *appsv1.StatefulSet {
	grace := int64(1)
	replicas := int32(3)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			ServiceName: "nginx",
			Replicas:    &replicas,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					Containers:                    []corev1.Container{{Name: "nginx", Image: imageOld}},
				},
			},
		},
	}
	for _, o := range opts {
		o(set)
	}
	return set
}

func onDelete(s *appsv1.StatefulSet) {
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
}

// waitComplete waits until every pod runs the update revision and is Ready.
func waitComplete(t *testing.T, ns string) *appsv1.StatefulSet {
	t.Helper()
	var set *appsv1.StatefulSet
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := client.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		set = s
		st := s.Status
		return st.ObservedGeneration == s.Generation && st.ReadyReplicas == *s.Spec.Replicas &&
			st.UpdatedReplicas == *s.Spec.Replicas && st.CurrentRevision == st.UpdateRevision, nil
	})
	if err != nil {
		t.Fatalf("waiting for web in %s to complete: %v (status %+v)", ns, err, set.Status)
	}
	return set
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// patchSet applies a strategic merge patch to web.
func patchSet(t *testing.T, ns, patch string) {
	t.Helper()
	_, err := client.AppsV1().StatefulSets(ns).Patch(context.Background(), "web", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// setImage changes the template's image and records a change-cause.
func setImage(t *testing.T, ns, image string) {
	t.Helper()
	patchSet(t, ns, fmt.Sprintf(`{"metadata":{"annotations":{"kubernetes.io/change-cause":"image %s"}},"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":%q}]}}}}`, image, image))
}

func getSet(t *testing.T, ns string) *appsv1.StatefulSet {
	t.Helper()
	s, err := client.AppsV1().StatefulSets(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func getPod(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	p, err := client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}
