package plane_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// The controller, as the ServiceAccount of config/ with exactly its RBAC,
// runs a service hook with a caller token: it may read the Service and its
// EndpointSlices and get a token of its own account, and the receiver gets
// that token.
func TestHookCallsWorkWithExactlyTheShippedRBAC(t *testing.T) {
	applyShippedConfig(t)
	host := planetest.HostAddress(t)
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
	}))
	l, err := net.Listen("tcp", net.JoinHostPort(host.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)

	ctx, ns := namespace(t)
	admin := planetest.Client()
	if _, err := admin.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db-admin"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 8080}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	port := int32(l.Addr().(*net.TCPAddr).Port)
	if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "db-admin-1", Labels: map[string]string{discoveryv1.LabelServiceName: "db-admin"}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: new(""), Port: &port}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{host.String()}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cfg := asTheControllersServiceAccount()
	ext, err := kubeclient.ExtendedClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := controller.Options{Workers: 2, Namespace: ns, Extended: ext, Hooks: podcall.HookOptions{
		AllowCIDRs: []netip.Prefix{netip.PrefixFrom(host, 32)}, APIServer: cfg.Host,
		TokenServiceAccount: types.NamespacedName{Namespace: "ordinal-system", Name: "ordinal-controller"}}}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- controller.Run(runCtx, kubernetes.NewForConfigOrDie(cfg), opts) }()
	defer func() { stop(); <-done }()

	sets, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	set := &v1alpha1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns}}
	base := rbacTestSet(ns)
	set.Spec.Replicas, set.Spec.ServiceName, set.Spec.Selector, set.Spec.Template = new(int32(1)), "db", base.Spec.Selector, base.Spec.Template
	set.Spec.Lifecycle = &v1alpha1.Lifecycle{PreUpdate: &v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "db-admin", Port: 8080}, TimeoutSeconds: 60}}
	if _, err := sets.StatefulSets(ns).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	settled := func() bool {
		s, err := sets.StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
		return err == nil && s.Status.ObservedGeneration == s.Generation && s.Status.UpdatedReplicas == 1 && s.Status.ReadyReplicas == 1 &&
			s.Status.CurrentRevision == s.Status.UpdateRevision
	}
	poll(t, ctx, "the extended set ready", settled)
	s, err := sets.StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Template.Spec.Containers[0].Image = "db:2"
	if _, err := sets.StatefulSets(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the rollout through the hook complete", settled)

	mu.Lock()
	defer mu.Unlock()
	if len(auth) != 1 || !strings.HasPrefix(auth[0], "Bearer ") {
		t.Errorf("the receiver got Authorization %q, want one call with a bearer token", auth)
	}
	events, err := admin.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if strings.Contains(e.Message, "forbidden") || e.Reason == "HookFailed" {
			t.Errorf("%s: %s", e.Reason, e.Message)
		}
	}
}
