package doctor_test

import (
	"bytes"
	"context"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ordinal-sh/ordinal/internal/cli/doctor"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// TestMain starts the package's plane with the built-in StatefulSet
// controller running, as a cluster before Ordinal takes over.
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) { cfg.StatefulSetController = plane.ControllerBuiltin })
}

// run runs `ordinal doctor` with the kubeconfig and returns its exit code
// and standard output.
func run(t *testing.T, kubeconfig string, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := exit.Run(doctor.New(), append([]string{"--kubeconfig", kubeconfig}, args...), &out, &errOut)
	t.Logf("ordinal doctor %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return code, out.String()
}

func wantLines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(`(?m)^` + p).MatchString(out) {
			t.Errorf("no line matches %q", p)
		}
	}
}

func namespace(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if _, err := planetest.Client().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func webSet(ns string) *appsv1.StatefulSet {
	labels := map[string]string{"app": "web"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{Replicas: new(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:1"}}}}},
	}
}

// waitForEvent waits until the built-in controller has written an event
// in the namespace.
func waitForEvent(t *testing.T, ctx context.Context, ns string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		events, err := planetest.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, e := range events.Items {
				if e.Source.Component == "statefulset-controller" {
					return
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the built-in controller wrote no event in %s within 60s", ns)
}

// While the built-in controller runs (and Ordinal is not installed), the
// doctor fails, naming what the built-in controller did.
func TestTheDoctorFailsWhileTheBuiltinControllerRuns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	namespace(t, ctx, "builtin")
	if _, err := planetest.Client().AppsV1().StatefulSets("builtin").Create(ctx, webSet("builtin"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, ctx, "builtin")
	code, out := run(t, planetest.Plane().KubeconfigPath(), "-n", "builtin")
	if code != exit.Failure {
		t.Errorf("exit code %d, want %d", code, exit.Failure)
	}
	wantLines(t, out,
		`ok +API server +https://127\.0\.0\.1:\d+, kubernetes \S+$`,
		`FAIL +built-in controller +running: statefulset-controller wrote event Successful\w+ on StatefulSet builtin/web \d+s ago; `+
			`\S+ wrote the status of StatefulSet builtin/web \d+s ago \(in the last 1h\)$`,
		`FAIL +Ordinal controller +not running: no Lease named ordinal-statefulset-controller in any namespace and no events from ordinal-statefulset-controller in the last 1h$`,
		`ok +extended kind CRD +installed and Established: the API server serves apps.ordinal.dev/v1alpha1 statefulsets$`,
		`FAIL +RBAC +ServiceAccount ordinal-system/ordinal-controller does not exist`,
		`ok +maxUnavailable gate +on: `,
		`verdict: NOT READY, built-in controller, Ordinal controller and RBAC failed$`)
}

// An API server that cannot be reached, or that refuses the credentials,
// gives one failed line saying so and exit code 5.
func TestTheDoctorSaysWhenItCannotReachTheAPIServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()
	for _, tc := range []struct {
		name string
		edit func(*clientcmdapi.Config)
		want string
	}{
		{"nothing listening", func(c *clientcmdapi.Config) {
			for _, cl := range c.Clusters {
				cl.Server = "https://" + closed
			}
		}, `FAIL +API server +cannot reach the API server at https://` + regexp.QuoteMeta(closed) + `: dial tcp ` + regexp.QuoteMeta(closed) + `: connect: connection refused$`},
		{"credentials refused", func(c *clientcmdapi.Config) {
			for _, a := range c.AuthInfos {
				a.ClientCertificateData, a.ClientKeyData, a.ClientCertificate, a.ClientKey, a.Token = nil, nil, "", "", "not-a-token"
			}
		}, `FAIL +API server +the API server at https://127\.0\.0\.1:\d+ refused the kubeconfig's credentials \(401 Unauthorized\)$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := run(t, planetest.Kubeconfig(t, tc.edit))
			if code != doctor.Unreachable {
				t.Errorf("exit code %d, want %d", code, doctor.Unreachable)
			}
			wantLines(t, out, tc.want)
			if n := strings.Count(out, "\n"); n != 2 {
				t.Errorf("printed %d lines, want the API line and the verdict", n)
			}
		})
	}
}

// A user without the permissions the checks need gets, for each check it
// could not make, the API server's own sentence naming the permission,
// and exit code 4 when nothing else failed.
func TestTheDoctorNamesThePermissionsItLacks(t *testing.T) {
	nobody := planetest.Kubeconfig(t, planetest.Impersonate("nobody"))
	code, out := run(t, nobody, "-n", "default")
	if code != doctor.CannotCheck {
		t.Errorf("exit code %d, want %d", code, doctor.CannotCheck)
	}
	wantLines(t, out,
		`\?\? +built-in controller +cannot check: reading events is forbidden: events is forbidden: User "nobody" cannot list resource "events" in API group "" at the cluster scope$`,
		`\?\? +Ordinal controller +cannot check: reading Leases named ordinal-statefulset-controller in any namespace is forbidden: leases.coordination.k8s.io "ordinal-statefulset-controller" is forbidden: User "nobody" cannot list resource "leases"`,
		`\?\? +maxUnavailable gate +cannot check: a dry-run create of a StatefulSet in namespace default is forbidden: .*User "nobody" cannot create resource "statefulsets".* \(pass -n with a namespace where you may create StatefulSets\)$`,
		`verdict: UNKNOWN, `)
}
