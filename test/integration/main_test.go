package integration

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/statefulset"

	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/invariant"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// client is the tests' own client; controllers get their own.
var client kubernetes.Interface

// TestMain starts the package's one control plane with no StatefulSet
// controller: each test attaches its own to its namespace. The plane's
// feature gates are 1.37's defaults, process-wide: MaxUnavailableStatefulSet
// on, so upstream's controller in this process takes its maxUnavailable
// path, and StatefulSetRecreateStrategy off. The Recreate tests turn that
// one on and off themselves (differential_recreate_test.go); they do not
// call t.Parallel, so they run before any test that does, alone.
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) {
		cfg.StatefulSetController = plane.ControllerNone
	}, func() { client = kubernetes.NewForConfigOrDie(restConfig(200, 400)) })
}

func restConfig(qps float32, burst int) *rest.Config {
	cfg := planetest.Plane().RESTConfig()
	cfg.QPS, cfg.Burst = qps, burst
	return cfg
}

// newNamespace creates a namespace for one test and deletes it afterwards
// (without waiting: the plane's namespace controller finishes the job).
func newNamespace(t *testing.T) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "it-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	// Every test's namespace is watched by the invariant checker; a
	// violation anywhere in its history fails the test.
	w := invariant.Watch(context.Background(), invariant.Clients{Kube: client, Extended: extendedClient(t)}, ns.Name, invariant.Options{})
	w.WaitSynced()
	watchers.Store(ns.Name, w)
	t.Cleanup(func() {
		w.Stop()
		w.Assert(t)
		watchers.Delete(ns.Name)
		_ = client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// watchers holds each test namespace's invariant watcher.
var watchers sync.Map

// externalDelete tells ns's invariant watcher that the test, not the
// controller, deletes the pod with uid.
func externalDelete(ns string, uid types.UID) {
	if w, ok := watchers.Load(ns); ok {
		w.(*invariant.Watcher).ExternalDelete(uid)
	}
}

// controllerClient has kube-controller-manager's client limits, so both
// controllers run under the same API budget.
func controllerClient() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(restConfig(20, 30))
}

// startOrdinal runs Ordinal's controller for ns until the test ends.
func startOrdinal(t *testing.T, ns string) {
	t.Helper()
	startOrdinalWith(t, ns, controller.Options{})
}

// startOrdinalWith runs Ordinal's controller for ns with opts (its
// workers, namespace and extended client are filled in) until the test
// ends.
func startOrdinalWith(t *testing.T, ns string, opts controller.Options) {
	t.Helper()
	t.Cleanup(runOrdinalController(t, ns, opts))
}

// runOrdinalController runs Ordinal's controller for ns with opts until the
// returned stop is called; stop waits for it to end, and may be called
// more than once.
func runOrdinalController(t *testing.T, ns string, opts controller.Options) (stop func()) {
	t.Helper()
	return runOrdinalControllerThrough(t, context.Background(), ns, opts, nil)
}

// runOrdinalControllerThrough is runOrdinalController under parent (whose
// logger the controller logs to) with every request of the controller, on
// both of its clients, sent through wrap (none if nil).
func runOrdinalControllerThrough(t *testing.T, parent context.Context, ns string, opts controller.Options, wrap func(http.RoundTripper) http.RoundTripper) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	done := make(chan error, 1)
	opts.Workers, opts.Namespace, opts.StorageClasses, opts.Nodes = 5, ns, true, true
	cfg := restConfig(20, 30)
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	var err error
	if opts.Extended, err = kubeclient.ExtendedClient(rest.CopyConfig(cfg)); err != nil {
		t.Fatal(err)
	}
	go func() { done <- controller.Run(ctx, kubernetes.NewForConfigOrDie(cfg), opts) }()
	return sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ordinal controller for %s: %v", ns, err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("ordinal controller for %s did not stop within 15s", ns)
		}
	})
}

// startBuiltin runs upstream's controller (k8s.io/kubernetes v1.37) for ns
// until the test ends, with informers scoped to ns. It follows the
// process's feature gates, as kube-controller-manager follows its own.
func startBuiltin(t *testing.T, ns string) {
	t.Helper()
	t.Cleanup(runBuiltinController(t, ns))
}

// runBuiltinController runs upstream's controller for ns until the returned stop is
// called; stop waits for it to end, and may be called more than once.
func runBuiltinController(t *testing.T, ns string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cl := controllerClient()
	factory := informers.NewSharedInformerFactoryWithOptions(cl, 0, informers.WithNamespace(ns))
	sc := statefulset.NewStatefulSetController(ctx,
		factory.Core().V1().Pods(), factory.Apps().V1().StatefulSets(),
		factory.Core().V1().PersistentVolumeClaims(), factory.Apps().V1().ControllerRevisions(), cl)
	factory.Start(ctx.Done())
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc.Run(ctx, 5)
	}()
	return sync.OnceFunc(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Errorf("builtin controller for %s did not stop within 15s", ns)
		}
		factory.Shutdown()
	})
}
