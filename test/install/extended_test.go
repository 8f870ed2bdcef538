package install

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// deploymentConfig is the controller's configuration from the arguments
// the manifest's Deployment gives it.
func deploymentConfig(t *testing.T, manifest string) controllercmd.Config {
	t.Helper()
	for _, o := range objects(t, manifest) {
		if o.GetKind() != "Deployment" {
			continue
		}
		containers, _, err := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		if err != nil || len(containers) != 1 {
			t.Fatalf("Deployment %s: %d containers, %v", o.GetName(), len(containers), err)
		}
		args, _, err := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
		if err != nil {
			t.Fatal(err)
		}
		cfg := controllercmd.NewConfig()
		fs := pflag.NewFlagSet("ordinal-controller", pflag.ContinueOnError)
		cfg.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("the Deployment's arguments %q: %v", args, err)
		}
		return cfg
	}
	t.Fatal("no Deployment in the manifest")
	return controllercmd.Config{}
}

// Installed by the chart with manageAppsV1 false, as on a managed cluster,
// the controller — run with its Deployment's arguments — rolls out an
// extended set and leaves an apps/v1 set created before it untouched: no
// pods, no status. The doctor says which sets Ordinal manages, and finds the
// built-in controller's absence worth a note, not a warning.
func TestWithManageAppsV1FalseOrdinalRunsOnlyTheExtendedKind(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	manifest := release{name: "ordinal", namespace: "ordinal-system", values: "manageAppsV1: false\n"}.mustRender(t)
	installForReal(t, ctx, manifest)
	cfg := deploymentConfig(t, manifest)
	if cfg.AppsV1 {
		t.Fatal("the chart with manageAppsV1 false runs the controller with --manage-apps-v1=true")
	}
	for _, call := range []struct{ verb, resource, sub string }{
		{"list", "statefulsets", ""}, {"watch", "statefulsets", ""}, {"get", "statefulsets", ""},
		{"update", "statefulsets", "status"}, {"update", "statefulsets", "finalizers"},
	} {
		attrs := authorizationv1.ResourceAttributes{Verb: call.verb, Group: "apps", Resource: call.resource, Subresource: call.sub}
		if mayDo(t, ctx, "ordinal-system", "ordinal-controller", attrs) {
			t.Errorf("with manageAppsV1 false the controller may %s apps/v1 %s/%s", call.verb, call.resource, call.sub)
		}
	}
	cfg.Kubeconfig = serviceAccountKubeconfig(t, "ordinal-system", "ordinal-controller")
	cfg.MetricsAddress = ""
	ns := "extended-only"
	if _, err := planetest.Client().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	web := testgen.StatefulSet("web", testgen.Replicas(2))
	web.ObjectMeta = metav1.ObjectMeta{Name: "web", Namespace: ns}
	if _, err := planetest.Client().AppsV1().StatefulSets(ns).Create(ctx, web, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	startController(t, cfg)

	db := setWithClaims(ns)
	extClient, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ext, err := testgen.Extended(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extClient.StatefulSets(ns).Create(ctx, ext, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitExtendedSet(t, ctx, extClient, ns, "db", 2)
	got, err := planetest.Client().AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != 0 || got.Status.Replicas != 0 {
		t.Errorf("the apps/v1 set was synced: status %+v", got.Status)
	}
	pods, err := planetest.Client().CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("the apps/v1 set has %d pods (%v), want none", len(pods.Items), err)
	}

	code, out := runDoctor(t, "-n", ns)
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	wantLines(t, out, map[string]string{
		"built-in": `info +built-in controller +no sign of it since Ordinal took the Lease \d+s ago .*flags are not visible here; ` +
			`Ordinal runs with --manage-apps-v1=false and leaves apps/v1 StatefulSets to it$`,
		"Ordinal": `ok +Ordinal controller +running: Lease ordinal-system/ordinal-statefulset-controller held by \S+ and renewed while watching; ` +
			`it manages only apps\.ordinal\.dev StatefulSets \(--manage-apps-v1=false\), the built-in controller apps/v1 ones$`,
		"the CRD":     `ok +extended kind CRD +installed and Established: `,
		"RBAC":        `ok +RBAC +ordinal-system/ordinal-controller may make all 64 calls `,
		"the verdict": `verdict: OK, Ordinal runs StatefulSets \(see the note about built-in controller\)$`,
	})
}

// waitExtendedSet waits until the extended set's rollout is complete with
// want ready pods, read through its apps/v1 view.
func waitExtendedSet(t *testing.T, ctx context.Context, c *ostsclient.Client, ns, name string, want int32) {
	t.Helper()
	waitComplete(t, "osts "+ns+"/"+name, want, func() (*appsv1.StatefulSet, error) {
		s, err := c.StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return osts.View(s), nil
	})
}
