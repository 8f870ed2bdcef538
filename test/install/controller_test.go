package install

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// installForReal applies the manifest's objects, all but the Deployment:
// the controller runs in the test process instead of its pod, under the
// ServiceAccount the manifest creates.
func installForReal(t *testing.T, ctx context.Context, manifest string) {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, o := range objects(t, manifest) {
		if o.GetKind() != "Deployment" {
			objs = append(objs, o)
		}
	}
	ensureNamespaces(t, ctx, objs)
	if err := newApplier(t).applyAll(ctx, objs, false); err != nil {
		t.Fatal(err)
	}
}

// serviceAccountKubeconfig writes a kubeconfig whose requests impersonate
// the ServiceAccount, so the API server authorizes them exactly as it would
// the controller's pod.
func serviceAccountKubeconfig(t *testing.T, namespace, name string) string {
	t.Helper()
	return planetest.Kubeconfig(t, planetest.Impersonate("system:serviceaccount:"+namespace+":"+name,
		"system:serviceaccounts", "system:serviceaccounts:"+namespace, "system:authenticated"))
}

// setWithClaims is a two-pod set with a claim each, deleted with the set.
func setWithClaims(ns string) *appsv1.StatefulSet {
	set := testgen.StatefulSet("db", testgen.Replicas(2), testgen.ClaimTemplates("data"),
		testgen.Retention(appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType))
	set.ObjectMeta = metav1.ObjectMeta{Name: "db", Namespace: ns}
	return set
}

// rollOut creates the set, waits for it, updates its image and waits for
// the rollout to complete: every kind of call the controller makes.
func rollOut(t *testing.T, ctx context.Context, ns string) {
	t.Helper()
	if _, err := planetest.Client().AppsV1().StatefulSets(ns).Create(ctx, setWithClaims(ns), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSet(t, ctx, ns, "db", 2)
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"registry.example/app:2"}]}}}}`)
	if _, err := planetest.Client().AppsV1().StatefulSets(ns).Patch(ctx, "db", "application/strategic-merge-patch+json", patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSet(t, ctx, ns, "db", 2)
	events, err := planetest.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if strings.Contains(e.Message, "forbidden") {
			t.Errorf("a call was forbidden: %s %s", e.Reason, e.Message)
		}
	}
}

// waitSet waits until the set's rollout is complete with want ready pods.
func waitSet(t *testing.T, ctx context.Context, ns, name string, want int32) {
	t.Helper()
	waitComplete(t, ns+"/"+name, want, func() (*appsv1.StatefulSet, error) {
		return planetest.Client().AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
	})
}

// waitComplete waits until the set get returns has completed its rollout
// with want ready pods.
func waitComplete(t *testing.T, set string, want int32, get func() (*appsv1.StatefulSet, error)) {
	t.Helper()
	var last appsv1.StatefulSetStatus
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		s, err := get()
		if err == nil {
			last = s.Status
			if s.Status.ObservedGeneration == s.Generation && s.Status.ReadyReplicas == want && s.Status.UpdatedReplicas == want &&
				s.Status.CurrentRevision == s.Status.UpdateRevision && s.Status.Replicas == want {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("set %s did not complete with %d ready pods; last status %+v", set, want, last)
}

// Installed by the chart to watch one namespace, the controller — with
// only the Role there and its leader-election Role — runs a rollout with
// claims to completion: a namespaced install needs nothing cluster-wide.
func TestTheControllerWorksWithOnlyTheChartsRolesInOneNamespace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := release{name: "scoped", namespace: "scoped-system", values: "watchNamespace: scoped-apps\nreplicas: 1\n"}
	installForReal(t, ctx, r.mustRender(t))
	cfg := controllercmd.NewConfig()
	cfg.Kubeconfig = serviceAccountKubeconfig(t, "scoped-system", "scoped-controller")
	cfg.Namespace, cfg.LeaseNamespace, cfg.LeaseName, cfg.MetricsAddress = "scoped-apps", "scoped-system", "scoped-statefulset-controller", ""
	startController(t, cfg)
	rollOut(t, ctx, "scoped-apps")
	lease, err := planetest.Client().CoordinationV1().Leases("scoped-system").Get(ctx, "scoped-statefulset-controller", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("the Lease scoped-system/scoped-statefulset-controller is not held: %v %+v", err, lease)
	}
	// Its leader election may renew its own Lease and no other in the
	// namespace.
	for name, want := range map[string]bool{"scoped-statefulset-controller": true, "another-components-lease": false} {
		for _, verb := range []string{"get", "update"} {
			attrs := authorizationv1.ResourceAttributes{Namespace: "scoped-system", Verb: verb, Group: "coordination.k8s.io", Resource: "leases", Name: name}
			if got := mayDo(t, ctx, "scoped-system", "scoped-controller", attrs); got != want {
				t.Errorf("the controller may %s the Lease %s: %v, want %v", verb, name, got, want)
			}
		}
	}
}

// mayDo asks the API server whether the ServiceAccount may make the call.
func mayDo(t *testing.T, ctx context.Context, namespace, name string, attrs authorizationv1.ResourceAttributes) bool {
	t.Helper()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "system:serviceaccount:" + namespace + ":" + name,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		ResourceAttributes: &attrs}}
	got, err := planetest.Client().AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status.Allowed
}
