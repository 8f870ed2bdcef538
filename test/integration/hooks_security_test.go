package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// urlSecret is in a hook URL's user information and query: it must show
// nowhere the controller writes.
const urlSecret = "url-s3cret-7f2a"

// noSecrets checks that none of secrets is in ns's events, its set's
// status, or its pods' labels and annotations.
func noSecrets(t *testing.T, ns string, secrets ...string) {
	t.Helper()
	var texts []string
	events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		texts = append(texts, e.Reason+": "+e.Message)
	}
	status, err := json.Marshal(getExtended(t, ns).Status)
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, string(status))
	for _, p := range listPods(t, ns) {
		texts = append(texts, fmt.Sprint(p.Labels, p.Annotations))
	}
	all := strings.Join(texts, "\n")
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("%q is written where the set's readers see it:\n%s", s, all)
		}
	}
}

// countingServer counts its calls and answers 200.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls.Add(1) }))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// By default a hook calls no loopback address, and even with loopback
// allowed it never calls the API server: the hook times out with the
// refusal as its last error, and nothing is called.
func TestAnHTTPHookCallsNoAddressThePolicyRefuses(t *testing.T) {
	t.Parallel()
	srv, calls := countingServer(t)
	api := planetest.Plane().RESTConfig().Host
	for _, tc := range []struct {
		name string
		opts podcall.HookOptions
		url  string
		want string
	}{
		{"a receiver on loopback, by default", podcall.HookOptions{APIServer: api}, srv.URL + "/switchover", "address 127.0.0.1 not allowed (loopback)"},
		{"the API server, with loopback allowed", hookOptions(), api + "/api/v1/namespaces", "address 127.0.0.1 not allowed (the API server)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := hookNamespaceWith(t, tc.opts)
			readySet(t, ns, 1, withHooks(httpLifecycleHook(tc.url, 3, v1alpha1.HookHalt), nil))
			rollTo(t, ns, imageNew)
			set := waitExtended(t, ns, time.Minute, "web-0 halted", blocked("web-0", "PreUpdateHookTimedOut", true))
			if msg := set.Status.BlockedBy[0].Message; !strings.Contains(msg, "last: "+tc.want+")") {
				t.Errorf("blockedBy message %q, want the last error %q", msg, tc.want)
			}
		})
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the loopback receiver was called %d times", n)
	}
}

// With a ServiceAccount configured, each call carries its token, which a
// receiver checks with a TokenReview: the hooks' audience and the set's
// namespace's pass, another namespace's does not, and the user is the
// ServiceAccount.
func TestAnHTTPHookCarriesAServiceAccountTokenAReceiverCanReview(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var tokens []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		tokens = append(tokens, r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	ns := newNamespace(t)
	logEvents(t, ns)
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "hook-caller"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	opts := hookOptions()
	opts.TokenServiceAccount.Namespace, opts.TokenServiceAccount.Name = ns, "hook-caller"
	startOrdinalWith(t, ns, controller.Options{Hooks: opts})
	readySet(t, ns, 1, withHooks(httpLifecycleHook(srv.URL+"/switchover", 60, v1alpha1.HookHalt), nil))
	rollTo(t, ns, imageNew)
	waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)

	mu.Lock()
	defer mu.Unlock()
	if len(tokens) == 0 {
		t.Fatal("no call received")
	}
	token, ok := strings.CutPrefix(tokens[0], "Bearer ")
	if !ok {
		t.Fatalf("Authorization %q, want a bearer token", tokens[0])
	}
	for _, tc := range []struct {
		audience string
		want     bool
	}{{v1alpha1.HookTokenAudience, true}, {v1alpha1.HookTokenAudience + "/" + ns, true}, {v1alpha1.HookTokenAudience + "/kube-system", false}, {"https://kubernetes.default.svc.cluster.local", false}} {
		review, err := client.AuthenticationV1().TokenReviews().Create(context.Background(), &authenticationv1.TokenReview{
			Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: []string{tc.audience}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := review.Status
		if st.Authenticated != tc.want || tc.want && st.User.Username != "system:serviceaccount:"+ns+":hook-caller" {
			t.Errorf("review for audience %s: authenticated %v as %q (%s), want %v as the ServiceAccount hook-caller", tc.audience, st.Authenticated, st.User.Username, st.Error, tc.want)
		}
	}
}

// A service hook calls a ready endpoint of a Service of the set's
// namespace, with <name>.<namespace>.svc as Host. The endpoint is this
// machine's address, the controller's own, which this test allows.
func TestAServiceHookCallsTheServicesEndpoint(t *testing.T) {
	t.Parallel()
	host := planetest.HostAddress(t)
	var mu sync.Mutex
	var hosts, paths []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		hosts, paths = append(hosts, r.Host), append(paths, r.URL.Path)
	}))
	l, err := net.Listen("tcp", net.JoinHostPort(host.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	opts := hookOptions()
	opts.AllowCIDRs = []netip.Prefix{netip.PrefixFrom(host, 32)}
	ns := hookNamespaceWith(t, opts)
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db-admin"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "admin", Port: 8080}}}}
	if _, err := client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	port := int32(srv.Listener.Addr().(*net.TCPAddr).Port)
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "db-admin-1", Labels: map[string]string{discoveryv1.LabelServiceName: "db-admin"}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: new("admin"), Port: &port}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{host.String()}}}}
	if _, err := client.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hook := &v1alpha1.LifecycleHook{Service: &v1alpha1.ServiceHook{Name: "db-admin", Port: 8080, Path: "/switchover"}, TimeoutSeconds: 60}
	readySet(t, ns, 2, withHooks(hook, nil))
	rollTo(t, ns, imageNew)
	waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	mu.Lock()
	defer mu.Unlock()
	if len(hosts) != 2 {
		t.Errorf("%d calls, want one per pod", len(hosts))
	}
	for i := range hosts {
		if hosts[i] != "db-admin."+ns+".svc:8080" || paths[i] != "/switchover" {
			t.Errorf("call to Host %q path %q, want db-admin.%s.svc:8080 /switchover", hosts[i], paths[i], ns)
		}
	}
}

// eventMessage is the message of ns's first event of reason, "" when none.
func eventMessage(t *testing.T, ns, reason string) string {
	t.Helper()
	events, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Reason == reason {
			return e.Message
		}
	}
	return ""
}
