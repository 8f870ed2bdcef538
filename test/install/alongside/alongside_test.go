package alongside

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/cli/doctor"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

const ns = "shop"

// Beside the built-in controller, Ordinal with --manage-apps-v1=false
// rolls out the extended set while the built-in controller rolls out the
// apps/v1 one; neither acts on the other's set. The doctor's verdict is OK,
// with the built-in controller's events as a note.
func TestBesideTheBuiltinControllerEachRunsItsOwnKind(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client := planetest.Client()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	serviceAccount(t, ctx)
	startOrdinal(t)
	// The doctor counts the built-in controller's traces from when Ordinal
	// took its Lease.
	waitFor(t, "Ordinal to hold its Lease", func() (bool, any) {
		l, err := client.CoordinationV1().Leases("kube-system").Get(ctx, "ordinal-statefulset-controller", metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", l
	})
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, set("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	osts, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	db, err := testgen.Extended(set("db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := osts.StatefulSets(ns).Create(ctx, db, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the apps/v1 set web to run 2 ready pods", func() (bool, any) {
		s, err := client.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && s.Status.ReadyReplicas == 2 && s.Status.ObservedGeneration == s.Generation, s
	})
	waitFor(t, "the extended set db to run 2 ready pods", func() (bool, any) {
		s, err := osts.StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
		return err == nil && s.Status.ReadyReplicas == 2 && s.Status.ObservedGeneration == s.Generation, s
	})
	wantSources(t, ctx, map[string]string{"web": "statefulset-controller", "db": "ordinal-statefulset-controller"})
	wantOwners(t, ctx, map[string]string{"web": "apps/v1", "db": v1alpha1.SchemeGroupVersion.String()})

	code, out := runDoctor(t, "-n", ns)
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	for _, pattern := range []string{
		`(?m)^info +built-in controller +running, as it must here: statefulset-controller wrote event \w+ on StatefulSet shop/web \d+s ago.*; ` +
			`Ordinal runs with --manage-apps-v1=false and leaves apps/v1 StatefulSets to it$`,
		`(?m)^ok +Ordinal controller +running: .*; it manages only apps\.ordinal\.dev StatefulSets \(--manage-apps-v1=false\), the built-in controller apps/v1 ones$`,
		`(?m)^ok +extended kind CRD +installed and Established: `,
	} {
		if !regexp.MustCompile(pattern).MatchString(out) {
			t.Errorf("no line matching %q in:\n%s", pattern, out)
		}
	}
}

// startOrdinal runs Ordinal's controller, as the admin, with
// --manage-apps-v1=false, until the test ends.
func startOrdinal(t *testing.T) {
	t.Helper()
	cfg := controllercmd.NewConfig()
	fs := pflag.NewFlagSet("ordinal-controller", pflag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse([]string{"--manage-apps-v1=false", "--metrics-address=", "--kubeconfig=" + planetest.Plane().KubeconfigPath()}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- controllercmd.Run(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the controller stopped with: %v", err)
		}
	})
}

// serviceAccount creates the ServiceAccount the doctor checks the
// controller's permissions for, bound to cluster-admin: the controller runs
// as the admin here (test/install checks the chart's own roles suffice).
func serviceAccount(t *testing.T, ctx context.Context) {
	t.Helper()
	client := planetest.Client()
	meta := metav1.ObjectMeta{Name: "ordinal-controller", Namespace: "ordinal-system"}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: meta.Namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ServiceAccounts(meta.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "ordinal-controller-admin"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: meta.Name, Namespace: meta.Namespace}}}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// set is a two-pod set in ns.
func set(name string) *appsv1.StatefulSet {
	s := testgen.StatefulSet(name, testgen.Replicas(2))
	s.ObjectMeta = metav1.ObjectMeta{Name: name, Namespace: ns}
	return s
}

// waitFor polls done until it holds, failing after a minute with what it
// saw last.
func waitFor(t *testing.T, what string, done func() (bool, any)) {
	t.Helper()
	var last any
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var ok bool
		if ok, last = done(); ok {
			return
		}
	}
	t.Fatalf("waited a minute for %s; last saw %+v", what, last)
}

// wantSources checks that every event about each set, or its pods, comes
// from the controller named for it, and that there is at least one.
func wantSources(t *testing.T, ctx context.Context, want map[string]string) {
	t.Helper()
	events, err := planetest.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range events.Items {
		if e.InvolvedObject.Kind != "StatefulSet" {
			continue
		}
		name := e.InvolvedObject.Name
		if e.Source.Component != want[name] {
			t.Errorf("%s wrote event %s on StatefulSet %s (%s); want only %s", e.Source.Component, e.Reason, name, e.InvolvedObject.APIVersion, want[name])
		}
		seen[name]++
	}
	for name, source := range want {
		if seen[name] == 0 {
			t.Errorf("no event from %s on StatefulSet %s", source, name)
		}
	}
}

// wantOwners checks that each set's pods are owned by the set of the
// named apiVersion, so each kind's controller made its own pods.
func wantOwners(t *testing.T, ctx context.Context, want map[string]string) {
	t.Helper()
	for name, apiVersion := range want {
		pods, err := planetest.Client().CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil || len(pods.Items) != 2 {
			t.Fatalf("set %s: %d pods (%v), want 2", name, len(pods.Items), err)
		}
		for _, p := range pods.Items {
			owner := metav1.GetControllerOf(&p)
			if owner == nil || owner.APIVersion != apiVersion || owner.Name != name {
				t.Errorf("pod %s is controlled by %+v, want the %s StatefulSet %s", p.Name, owner, apiVersion, name)
			}
		}
	}
}

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
