package integration

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// kubectl runs the kubectl in PATH against the plane, in namespace ns.
func kubectl(t *testing.T, ns string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", planetest.Plane().KubeconfigPath(), "-n", ns}, args...)
	cmd := exec.CommandContext(ctx, "kubectl", full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// kubectlUntilDone runs kubectl, calls then once its output contains
// marker, and returns the whole output when kubectl has exited.
func kubectlUntilDone(t *testing.T, ns, marker string, then func(), args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", planetest.Plane().KubeconfigPath(), "-n", ns}, args...)
	cmd := exec.CommandContext(ctx, "kubectl", full...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	called := false
	scanner := bufio.NewScanner(pipe)
	for scanner.Scan() {
		out.WriteString(scanner.Text() + "\n")
		if !called && strings.Contains(scanner.Text(), marker) {
			called = true
			then()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), stderr.String())
	}
	if !called {
		t.Fatalf("kubectl %s never printed %q; output:\n%s", strings.Join(args, " "), marker, out.String())
	}
	return out.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func images(t *testing.T, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range listPods(t, ns) {
		if p.DeletionTimestamp == nil && isReady(&p) {
			out[p.Name] = p.Spec.Containers[0].Image
		}
	}
	return out
}

func waitImages(t *testing.T, ns string, want map[string]string) {
	t.Helper()
	waitFor(t, time.Minute, fmt.Sprintf("pods running %v", want), func() (bool, error) {
		got := images(t, ns)
		return fmt.Sprint(got) == fmt.Sprint(want), fmt.Errorf("pods run %v", got)
	})
}

// historyRows parses `kubectl rollout history` into "REVISION CHANGE-CAUSE"
// rows without the header.
func historyRows(out string) []string {
	var rows []string
	space := regexp.MustCompile(`\s+`)
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(space.ReplaceAllString(l, " "))
		if l == "" || strings.HasPrefix(l, "statefulset.apps/") || strings.HasPrefix(l, "REVISION") {
			continue
		}
		rows = append(rows, l)
	}
	return rows
}

func TestKubectlWalkThrough(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	const v8, v9, v10 = imageOld, imageNew, imageNewer

	// The controller starts only once rollout status has said it waits, so
	// the command is seen waiting however slowly kubectl starts.
	kubectl(t, ns, "apply", "-f", "../../examples/web.yaml")
	out := kubectlUntilDone(t, ns, "Waiting for", func() { startOrdinal(t, ns) }, "rollout", "status", "sts/web", "--timeout=60s")
	if got, want := lastLine(out), "partitioned roll out complete: 3 new pods have been updated..."; got != want {
		t.Fatalf("rollout status ended with %q, want %q; full output:\n%s", got, want, out)
	}
	waitImages(t, ns, map[string]string{"web-0": v8, "web-1": v8, "web-2": v8})

	// Rolling update.
	kubectl(t, ns, "annotate", "sts/web", "kubernetes.io/change-cause=nginx 0.9")
	kubectl(t, ns, "set", "image", "sts/web", "nginx="+v9)
	out = kubectl(t, ns, "rollout", "status", "sts/web", "--timeout=60s")
	if got, want := lastLine(out), "partitioned roll out complete: 3 new pods have been updated..."; got != want {
		t.Fatalf("rollout status after set image ended with %q, want %q", got, want)
	}
	waitImages(t, ns, map[string]string{"web-0": v9, "web-1": v9, "web-2": v9})

	// Canary: a partition of 2 updates web-2 only.
	kubectl(t, ns, "patch", "sts", "web", "-p", `{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}`)
	kubectl(t, ns, "annotate", "--overwrite", "sts/web", "kubernetes.io/change-cause=nginx 0.10")
	kubectl(t, ns, "patch", "sts", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"`+v10+`"}]`)
	waitImages(t, ns, map[string]string{"web-0": v9, "web-1": v9, "web-2": v10})
	out = kubectl(t, ns, "rollout", "status", "sts/web", "--timeout=60s")
	if got, want := lastLine(out), "partitioned roll out complete: 1 new pods have been updated..."; got != want {
		t.Fatalf("rollout status of the canary ended with %q, want %q", got, want)
	}

	// Staged roll-out: lower the partition.
	kubectl(t, ns, "patch", "sts", "web", "-p", `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":1}}}}`)
	waitImages(t, ns, map[string]string{"web-0": v9, "web-1": v10, "web-2": v10})
	kubectl(t, ns, "patch", "sts", "web", "-p", `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`)
	out = kubectl(t, ns, "rollout", "status", "sts/web", "--timeout=60s")
	if got, want := lastLine(out), "partitioned roll out complete: 3 new pods have been updated..."; got != want {
		t.Fatalf("rollout status of the staged roll-out ended with %q, want %q", got, want)
	}
	waitImages(t, ns, map[string]string{"web-0": v10, "web-1": v10, "web-2": v10})
	set := waitSet(t, ns, time.Minute, "the staged roll-out to finish", settled)

	want := []string{"1 <none>", "2 nginx 0.9", "3 nginx 0.10"}
	if got := historyRows(kubectl(t, ns, "rollout", "history", "sts/web")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rollout history rows %q, want %q", got, want)
	}
	if out := kubectl(t, ns, "rollout", "history", "sts/web", "--revision=2"); !strings.Contains(out, "Image:\t"+v9) && !regexp.MustCompile(`Image:\s+`+regexp.QuoteMeta(v9)).MatchString(out) {
		t.Fatalf("rollout history --revision=2 should show image %s:\n%s", v9, out)
	}

	// Undo goes back to revision 2's template and reuses its revision.
	kubectl(t, ns, "rollout", "undo", "sts/web")
	kubectl(t, ns, "rollout", "status", "sts/web", "--timeout=60s")
	waitImages(t, ns, map[string]string{"web-0": v9, "web-1": v9, "web-2": v9})
	undone := waitSet(t, ns, time.Minute, "the undo to finish", updatedFrom(set.Status.UpdateRevision))
	if revs := listRevisions(t, ns); len(revs) != 3 || revs[2].Name != undone.Status.UpdateRevision || revs[2].Revision != 4 {
		t.Fatalf("after undo want 3 revisions with %s at .revision 4, got %v", undone.Status.UpdateRevision, describeRevisions(revs))
	}

	// Roll forward to the 0.10 template (now revision 3).
	kubectl(t, ns, "rollout", "undo", "sts/web", "--to-revision=3")
	out = kubectl(t, ns, "rollout", "status", "sts/web", "--timeout=60s")
	if got, want := lastLine(out), "partitioned roll out complete: 3 new pods have been updated..."; got != want {
		t.Fatalf("rollout status of the roll forward ended with %q, want %q", got, want)
	}
	waitImages(t, ns, map[string]string{"web-0": v10, "web-1": v10, "web-2": v10})
	waitSet(t, ns, time.Minute, "the roll forward to finish", func(s *appsv1.StatefulSet) error {
		if s.Status.UpdateRevision != set.Status.UpdateRevision {
			return fmt.Errorf("update revision %s, want %s", s.Status.UpdateRevision, set.Status.UpdateRevision)
		}
		return settled(s)
	})
	want = []string{"1 <none>", "4 nginx 0.9", "5 nginx 0.10"}
	if got := historyRows(kubectl(t, ns, "rollout", "history", "sts/web")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rollout history rows after roll forward %q, want %q", got, want)
	}
}
