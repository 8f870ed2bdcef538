package plane_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

const controllerSA = "system:serviceaccount:ordinal-system:ordinal-controller"

// applyShippedConfig applies config/ (the CRD, the controller's
// ServiceAccount and its RBAC) to the package's plane.
func applyShippedConfig(t *testing.T) {
	t.Helper()
	kubectl := planetest.KubectlOrSkip(t)
	if out, err := exec.Command(kubectl, "--kubeconfig", planetest.Plane().KubeconfigPath(), "apply", "-k", configDir(t)).CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -k config: %v\n%s", err, out)
	}
}

// asTheControllersServiceAccount is the plane's admin configuration
// impersonating the controller's ServiceAccount, so that every request
// is judged by exactly the RBAC of config/.
func asTheControllersServiceAccount() *rest.Config {
	cfg := planetest.Plane().RESTConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: controllerSA, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ordinal-system", "system:authenticated"}}
	return cfg
}

func configDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../config")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTheConfigManifestsPassServerSideDryRun(t *testing.T) {
	kubectl := planetest.KubectlOrSkip(t)
	// A server-side dry run cannot place objects in a namespace that does
	// not exist yet, so the namespace is created for real first.
	if out, err := exec.Command(kubectl, "--kubeconfig", planetest.Plane().KubeconfigPath(), "apply", "-f", filepath.Join(configDir(t), "namespace.yaml")).CombinedOutput(); err != nil {
		t.Fatalf("creating the namespace: %v\n%s", err, out)
	}
	out, err := exec.Command(kubectl, "--kubeconfig", planetest.Plane().KubeconfigPath(), "apply", "-k", configDir(t), "--dry-run=server").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, out)
	}
	for _, want := range []string{"serviceaccount/ordinal-controller", "clusterrole.rbac.authorization.k8s.io/ordinal-statefulset-controller",
		"clusterrolebinding.rbac.authorization.k8s.io/ordinal-statefulset-controller", "deployment.apps/ordinal-controller"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("dry run did not mention %s:\n%s", want, out)
		}
	}
}

// The controller runs as the ServiceAccount of config/, with exactly the
// RBAC shipped there, and a rollout with claims and a retention policy
// completes: every call it makes is allowed.
func TestTheControllerWorksWithExactlyTheShippedRBAC(t *testing.T) {
	applyShippedConfig(t)
	ctx, ns := namespace(t)
	cfg := asTheControllersServiceAccount()
	client := kubernetes.NewForConfigOrDie(cfg)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- controller.Run(runCtx, client, controller.Options{Workers: 2, Namespace: ns}) }()
	defer func() { stop(); <-done }()

	set := rbacTestSet(ns)
	if _, err := planetest.Client().AppsV1().StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSet(t, ctx, ns, "db", 2)
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"db","image":"db:2"}]}}}}`)
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

func rbacTestSet(ns string) *appsv1.StatefulSet {
	labels := map[string]string{"app": "db"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas: new(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels}, ServiceName: "db",
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "db:1"}}}},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType},
		},
	}
}

// waitSet waits until the set's rollout is complete with want ready pods.
func waitSet(t *testing.T, ctx context.Context, ns, name string, want int32) {
	t.Helper()
	var last appsv1.StatefulSetStatus
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		s, err := planetest.Client().AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			last = s.Status
			if s.Status.ObservedGeneration == s.Generation && s.Status.ReadyReplicas == want && s.Status.UpdatedReplicas == want &&
				s.Status.CurrentRevision == s.Status.UpdateRevision && s.Status.Replicas == want {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("set %s/%s did not complete with %d ready pods; last status %+v", ns, name, want, last)
}

// An extended set updated in place runs under the shipped RBAC: the
// controller writes its readiness gate's condition through pods/status
// (a pod with the gate is never Ready until it does) and a new cpu
// request through pods/resize. Without those rules a set that updates in
// place never turns Ready, as it hung on a real node.
func TestInPlaceUpdatesWorkWithExactlyTheShippedRBAC(t *testing.T) {
	applyShippedConfig(t)
	ctx, ns := namespace(t)
	cfg := asTheControllersServiceAccount()
	client := kubernetes.NewForConfigOrDie(cfg)
	ext, err := kubeclient.ExtendedClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- controller.Run(runCtx, client, controller.Options{Workers: 2, Namespace: ns, Extended: ext})
	}()
	defer func() { stop(); <-done }()

	apps := rbacTestSet(ns)
	apps.Spec.VolumeClaimTemplates, apps.Spec.PersistentVolumeClaimRetentionPolicy = nil, nil
	apps.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	set := &v1alpha1.StatefulSet{ObjectMeta: apps.ObjectMeta}
	data, err := json.Marshal(apps.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &set.Spec); err != nil {
		t.Fatal(err)
	}
	set.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{PodUpdatePolicy: v1alpha1.PodUpdateInPlaceOnly}
	admin, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	sets := admin.StatefulSets(ns)
	if _, err := sets.Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitExtendedSet(t, ctx, sets, "db", 2)
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"db","image":"db:2","resources":{"requests":{"cpu":"200m"}}}]}}}}`)
	if _, err := sets.Patch(ctx, "db", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitExtendedSet(t, ctx, sets, "db", 2)
	for _, name := range []string{"db-0", "db-1"} {
		p, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Spec.Containers[0].Resources.Requests.Cpu().String(); got != "200m" || p.Spec.Containers[0].Image != "db:2" {
			t.Errorf("%s runs %s with cpu %s, want db:2 with 200m, changed in place", name, p.Spec.Containers[0].Image, got)
		}
	}
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

// waitExtendedSet waits until the extended set's rollout is complete
// with want ready pods.
func waitExtendedSet(t *testing.T, ctx context.Context, sets ostsclient.Interface, name string, want int32) {
	t.Helper()
	var last v1alpha1.StatefulSetStatus
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		s, err := sets.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			last = s.Status
			if s.Status.ObservedGeneration == s.Generation && s.Status.ReadyReplicas == want && s.Status.UpdatedReplicas == want &&
				s.Status.CurrentRevision == s.Status.UpdateRevision && s.Status.Replicas == want {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("extended set %s did not complete with %d ready pods; last status %+v", name, want, last)
}

// An extended set's rolling update evicts the pods it replaces (it
// respects PodDisruptionBudgets by default), and runs under the shipped
// RBAC: the controller may create pods/eviction. Without that rule every
// eviction is forbidden and the rollout never completes.
func TestEvictionsWorkWithExactlyTheShippedRBAC(t *testing.T) {
	applyShippedConfig(t)
	ctx, ns := namespace(t)
	cfg := asTheControllersServiceAccount()
	ext, err := kubeclient.ExtendedClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- controller.Run(runCtx, kubernetes.NewForConfigOrDie(cfg), controller.Options{Workers: 2, Namespace: ns, Extended: ext})
	}()
	defer func() { stop(); <-done }()

	apps := rbacTestSet(ns)
	apps.Spec.VolumeClaimTemplates, apps.Spec.PersistentVolumeClaimRetentionPolicy = nil, nil
	set := &v1alpha1.StatefulSet{ObjectMeta: apps.ObjectMeta}
	data, err := json.Marshal(apps.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &set.Spec); err != nil {
		t.Fatal(err)
	}
	admin, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	sets := admin.StatefulSets(ns)
	if _, err := sets.Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitExtendedSet(t, ctx, sets, "db", 2)
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"db","image":"db:2"}]}}}}`)
	if _, err := sets.Patch(ctx, "db", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitExtendedSet(t, ctx, sets, "db", 2)
	events, err := planetest.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evicted := 0
	for _, e := range events.Items {
		if strings.Contains(e.Message, "forbidden") {
			t.Errorf("a call was forbidden: %s %s", e.Reason, e.Message)
		}
		if e.Reason == "SuccessfulDelete" {
			evicted++
		}
	}
	if evicted == 0 {
		t.Error("no SuccessfulDelete event: the rollout replaced no pod")
	}
}

// The controller sends role probes to the socket for the range the
// simulated nodes give pods their addresses from.
func TestTheControllerReroutesTheSimulatedPodsRange(t *testing.T) {
	nodesRange := netip.MustParsePrefix(nodes.PodCIDR).Masked()
	if want := netip.MustParsePrefix(podcall.SimulatedPodCIDR); nodesRange != want {
		t.Errorf("simulated pods get addresses from %s; the controller reroutes %s", nodesRange, want)
	}
	if nodes.ProbeSocketName != podcall.SimulatedPodsSocketName {
		t.Errorf("the simulated pods answer on %s; the controller's flag names %s", nodes.ProbeSocketName, podcall.SimulatedPodsSocketName)
	}
}
