package install

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/cli/doctor"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// runDoctor runs `ordinal doctor` as the admin and returns its exit code
// and output.
func runDoctor(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"--kubeconfig", planetest.Plane().KubeconfigPath()}, args...)
	code := exit.Run(doctor.New(), args, &out, &errOut)
	t.Logf("ordinal doctor %s: exit %d\n%s%s", strings.Join(args[2:], " "), code, out.String(), errOut.String())
	return code, out.String()
}

// wantLines checks each check's line by its status and a pattern.
func wantLines(t *testing.T, out string, want map[string]string) {
	t.Helper()
	for check, pattern := range want {
		re := regexp.MustCompile(`(?m)^` + pattern)
		if !re.MatchString(out) {
			t.Errorf("no line for %s matching %q in:\n%s", check, pattern, out)
		}
	}
}

// On a cluster without the built-in controller where Ordinal runs from
// config/ under its own ServiceAccount, the doctor's verdict is OK; once
// the controller stops, it fails and says the Lease has no holder.
func TestTheDoctorSeesOrdinalTakeOverAndStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	installForReal(t, ctx, buildConfig(t))
	ns := "doctor-ok"
	if _, err := planetest.Client().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := controllercmd.NewConfig()
	cfg.Kubeconfig = serviceAccountKubeconfig(t, "ordinal-system", "ordinal-controller")
	cfg.LeaseNamespace, cfg.MetricsAddress = "ordinal-system", ""
	stop := startController(t, cfg)
	rollOut(t, ctx, ns)

	code, out := runDoctor(t, "-n", ns)
	if code != 0 {
		t.Errorf("exit code %d with Ordinal running, want 0", code)
	}
	wantLines(t, out, map[string]string{
		"the API":     `ok +API server +https://127\.0\.0\.1:\d+, kubernetes \S+$`,
		"built-in":    `warn +built-in controller +no sign of it since Ordinal took the Lease \d+s ago .*flags are not visible here`,
		"Ordinal":     `ok +Ordinal controller +running: Lease ordinal-system/ordinal-statefulset-controller held by \S+ and renewed while watching$`,
		"the CRD":     `ok +extended kind CRD +installed and Established: the API server serves apps\.ordinal\.dev/v1alpha1 statefulsets$`,
		"RBAC":        `ok +RBAC +ordinal-system/ordinal-controller may make all 69 calls the controller makes in all namespaces$`,
		"the gate":    `ok +maxUnavailable gate +on: `,
		"the verdict": `verdict: OK, Ordinal runs StatefulSets`,
	})

	stop()
	code, out = runDoctor(t, "-n", ns)
	if code != exit.Failure {
		t.Errorf("exit code %d with the controller stopped, want %d", code, exit.Failure)
	}
	wantLines(t, out, map[string]string{
		"Ordinal":     `FAIL +Ordinal controller +not running: Lease ordinal-system/ordinal-statefulset-controller has no holder$`,
		"RBAC":        `ok +RBAC +ordinal-system/ordinal-controller may make all 69 calls the controller makes in all namespaces$`,
		"the verdict": `verdict: NOT READY, Ordinal controller failed$`,
	})
}

// startController runs the controller and returns a function that stops it
// and waits; the test's end stops it too.
func startController(t *testing.T, cfg controllercmd.Config) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controllercmd.Run(ctx, cfg) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the controller stopped with: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}
