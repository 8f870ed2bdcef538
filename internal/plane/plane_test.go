package plane_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

func TestTheSharedPlaneServesKubectlOnLoopbackWithReadyNodes(t *testing.T) {
	if !strings.HasPrefix(planetest.Plane().Server(), "https://127.0.0.1:") {
		t.Fatalf("server %s is not https on 127.0.0.1", planetest.Plane().Server())
	}
	fi, err := os.Stat(planetest.Plane().KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode %v, want 0600", fi.Mode().Perm())
	}
	if planetest.Plane().KubeconfigPath() != filepath.Join(planetest.DataDir(), "kubeconfig") {
		t.Errorf("kubeconfig at %s, want DATA_DIR/kubeconfig", planetest.Plane().KubeconfigPath())
	}
	kubectl := planetest.KubectlOrSkip(t)
	out, err := exec.Command(kubectl, "--kubeconfig", planetest.Plane().KubeconfigPath(), "get", "nodes", "--no-headers").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get nodes: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("kubectl lists %d nodes, want 3:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) < 2 || f[1] != "Ready" {
			t.Errorf("node not Ready: %q", l)
		}
	}
}

func TestAnonymousRequestsAreRefused(t *testing.T) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the test checks authentication, not the server's identity
	for _, path := range []string{"/api/v1/namespaces", "/version", "/readyz"} {
		resp, err := client.Get(planetest.Plane().Server() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("anonymous GET %s: status %d, want 401", path, resp.StatusCode)
		}
	}
}

func TestAPodWithAClaimRunsAndItsVolumeIsADirectoryInTheDataDir(t *testing.T) {
	ctx, ns := namespace(t)
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := planetest.Client().CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := simplePod("web", nil)
	pod.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
	if _, err := planetest.Client().CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, ns, "web", "Running and Ready", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && ready(p) })
	var bound *corev1.PersistentVolumeClaim
	poll(t, ctx, "claim Bound", func() bool {
		c, err := planetest.Client().CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
		bound = c
		return err == nil && c.Status.Phase == corev1.ClaimBound
	})
	pv, err := planetest.Client().CoreV1().PersistentVolumes().Get(ctx, bound.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pv.Spec.HostPath == nil || !strings.HasPrefix(pv.Spec.HostPath.Path, filepath.Join(planetest.DataDir(), "volumes")+string(filepath.Separator)) {
		t.Fatalf("volume %s is not a hostPath under the data dir: %+v", pv.Name, pv.Spec.PersistentVolumeSource)
	}
	if fi, err := os.Stat(pv.Spec.HostPath.Path); err != nil || !fi.IsDir() {
		t.Fatalf("volume directory %s: %v", pv.Spec.HostPath.Path, err)
	}
}

func TestAnnotatedPodsMisbehaveAsAsked(t *testing.T) {
	ctx, ns := namespace(t)
	cases := []struct {
		behavior string
		want     string
		check    func(*corev1.Pod) bool
	}{
		{nodes.BehaviorNeverReady, "Running, not Ready", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodRunning && !ready(p) && len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Running != nil
		}},
		{nodes.BehaviorCrashLoop, "CrashLoopBackOff", func(p *corev1.Pod) bool { return waitingReason(p) == "CrashLoopBackOff" && !ready(p) }},
		{nodes.BehaviorFail, "Failed", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed }},
		{nodes.BehaviorImagePullError, "ErrImagePull", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodPending && waitingReason(p) == "ErrImagePull"
		}},
	}
	for _, c := range cases {
		pod := simplePod(c.behavior, map[string]string{nodes.AnnotationBehavior: c.behavior})
		if _, err := planetest.Client().CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		waitPod(t, ctx, ns, c.behavior, c.want, c.check)
	}
	// Stays that way: well past the ready delay, no pod became Ready.
	time.Sleep(time.Second)
	for _, c := range cases {
		p, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, c.behavior, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ready(p) || !c.check(p) {
			t.Errorf("pod %s left state %q: phase %s ready %v", c.behavior, c.want, p.Status.Phase, ready(p))
		}
	}
}

func TestTerminationHonoursStopDelayAndGracePeriod(t *testing.T) {
	ctx, ns := namespace(t)
	// slow: stop-delay 60s but grace 2s, so gone after about 2s.
	// quick: stop-delay 0 (default), gone almost at once though grace is 30s.
	slow := simplePod("slow", map[string]string{nodes.AnnotationStopDelay: "60s"})
	slow.Spec.TerminationGracePeriodSeconds = new(int64(2))
	quick := simplePod("quick", nil)
	for _, p := range []*corev1.Pod{slow, quick} {
		if _, err := planetest.Client().CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPod(t, ctx, ns, p.Name, "Ready", ready)
	}
	for _, tc := range []struct {
		name     string
		min, max time.Duration
	}{{"slow", 1500 * time.Millisecond, 6 * time.Second}, {"quick", 0, 1500 * time.Millisecond}} {
		began := time.Now()
		if err := planetest.Client().CoreV1().Pods(ns).Delete(ctx, tc.name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		poll(t, ctx, tc.name+" gone", func() bool {
			_, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, tc.name, metav1.GetOptions{})
			return err != nil
		})
		if took := time.Since(began); took < tc.min || took > tc.max {
			t.Errorf("pod %s took %s to terminate, want between %s and %s", tc.name, took, tc.min, tc.max)
		}
	}
}

func TestASecondPlaneOnTheSameDataDirIsRefused(t *testing.T) {
	_, err := plane.Start(context.Background(), planetest.Config(planetest.DataDir()))
	wantErr(t, err, "is in use by another ordinal up")
}

func TestABusyPortIsReportedClearly(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := planetest.Config(t.TempDir())
	cfg.Port = l.Addr().(*net.TCPAddr).Port
	_, err = plane.Start(context.Background(), cfg)
	wantErr(t, err, "is already in use")
}

func TestABadDataDirIsReportedAndLeftAlone(t *testing.T) {
	t.Run("a file where the directory should be", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := plane.Start(context.Background(), planetest.Config(path))
		wantErr(t, err, "is not a directory")
	})
	t.Run("a corrupt certificate authority", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"pki/ca.crt": "garbage", "pki/ca.key": "garbage"})
		_, err := plane.Start(context.Background(), planetest.Config(dir))
		wantErr(t, err, "ca.crt is corrupt")
		assertFiles(t, dir, map[string]string{"pki/ca.crt": "garbage", "pki/ca.key": "garbage"})
	})
	t.Run("a data dir others may write", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		_, err := plane.Start(context.Background(), planetest.Config(dir))
		wantErr(t, err, "data dir "+dir+" is writable by its group or others (mode 0777)")
	})
	t.Run("a certificate authority another user planted", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"pki/ca.crt": "planted", "pki/ca.key": "planted"})
		crt := filepath.Join(dir, "pki", "ca.crt")
		want := "certificate authority file " + crt + " is writable by its group or others (mode 0666)"
		if os.Geteuid() == 0 {
			if err := os.Chown(crt, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			want = "certificate authority file " + crt + " belongs to uid 65534, not to you (uid 0)"
		} else if err := os.Chmod(crt, 0o666); err != nil {
			t.Fatal(err)
		}
		_, err := plane.Start(context.Background(), planetest.Config(dir))
		wantErr(t, err, want)
		assertFiles(t, dir, map[string]string{"pki/ca.crt": "planted", "pki/ca.key": "planted"})
	})
	t.Run("a corrupt etcd database", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"etcd/member/snap/db": strings.Repeat("corrupt", 1000), "etcd/member/wal/0000000000000000-0000000000000000.wal": "corrupt"})
		_, err := plane.Start(context.Background(), planetest.Config(dir))
		wantErr(t, err, "etcd database "+filepath.Join(dir, "etcd", "member", "snap", "db")+" is unreadable or corrupt")
		assertFiles(t, dir, map[string]string{"etcd/member/snap/db": strings.Repeat("corrupt", 1000)})
	})
}

// helpers

func namespace(t *testing.T) (context.Context, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: strings.Trim(name, "-") + "-"}}
	created, err := planetest.Client().CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	name = created.Name
	poll(t, ctx, "default service account", func() bool {
		_, err := planetest.Client().CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	return ctx, name
}

func simplePod(name string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/nginx-slim:0.8"}}},
	}
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func waitingReason(p *corev1.Pod) string {
	if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Waiting == nil {
		return ""
	}
	return p.Status.ContainerStatuses[0].State.Waiting.Reason
}

func waitPod(t *testing.T, ctx context.Context, ns, name, what string, cond func(*corev1.Pod) bool) {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s never became %s; last status %+v", ns, name, what, last.Status)
	}
}

func poll(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func wantErr(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", substr)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %q does not contain %q", err, substr)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans several lines: %q", err)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func assertFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != content {
			t.Errorf("%s changed or vanished: %v", name, err)
		}
	}
}

func TestTheAPIServerKeepsMaxUnavailable(t *testing.T) {
	ctx, ns := namespace(t)
	labels := map[string]string{"app": "m"}
	two := intstr.FromInt32(2)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "m"},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: simplePod("x", nil).Spec},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &two}},
		},
	}
	got, err := planetest.Client().AppsV1().StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if mu := got.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable; mu == nil || mu.IntValue() != 2 {
		t.Fatalf("maxUnavailable came back as %v, want 2 (is the MaxUnavailableStatefulSet gate on?)", mu)
	}
}
