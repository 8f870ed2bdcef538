package podcall

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// callOnce makes one call of a and returns the pod's hook label and record.
func callOnce(t *testing.T, h *hookCaller, client *fake.Clientset, a planner.Action) (string, v1alpha1.HookRecord) {
	t.Helper()
	h.start(context.Background(), "ns/web", a)
	settled(t, h)
	return hookState(t, client)
}

// counting is a receiver that counts its calls and answers code.
func counting(t *testing.T, code int, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// By default a hook reaches no loopback address, whether the URL names it
// or a host name resolves to it: the receiver is never called and the pod
// records why.
func TestAHookCallToAForbiddenAddressIsRefused(t *testing.T) {
	srv, calls := counting(t, http.StatusOK, "")
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, url := range []string{srv.URL, fmt.Sprintf("http://localhost:%d/x", port), fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/x", port)} {
		h, client, a := hookCallTo(t, url, HookOptions{})
		state, rec := callOnce(t, h, client, a)
		if state != v1alpha1.HookPending || !strings.HasSuffix(rec.LastError, " not allowed (loopback)") || !strings.HasPrefix(rec.LastError, "address ") {
			t.Errorf("%s: labelled %s with error %q, want still Pending, the loopback address refused", url, state, rec.LastError)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the receiver on loopback was called %d times", n)
	}
}

// A name checked once and then resolved again to another address cannot
// slip through: the policy judges each connection's address as it is
// made. Here the name first resolves to an allowed address, then to a
// refused one.
func TestAHookNameThatResolvesAnewIsJudgedAtEachConnection(t *testing.T) {
	l, err := net.Listen("tcp", ":0") // every address, so 127.0.0.1 and 127.0.0.2 alike
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls.Add(1) })}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	port := l.Addr().(*net.TCPAddr).Port

	h, client, a := hookCallTo(t, fmt.Sprintf("http://hooks.example:%d/switchover", port),
		HookOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}})
	var mu sync.Mutex
	answers := []string{"127.0.0.2", "127.0.0.1"}
	h.net.lookup = func(_ context.Context, _, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		if host != "hooks.example" {
			return nil, fmt.Errorf("unexpected lookup of %s", host)
		}
		a := netip.MustParseAddr(answers[0])
		answers = answers[1:]
		return []netip.Addr{a}, nil
	}
	if state, rec := callOnce(t, h, client, a); state != v1alpha1.HookDone || calls.Load() != 1 {
		t.Fatalf("first call, to 127.0.0.2: labelled %s (%q), %d calls received; want Done, 1", state, rec.LastError, calls.Load())
	}
	next := a
	call := *a.Call
	call.Request.Attempt = 2
	next.Call = &call
	h.start(context.Background(), "ns/web", next)
	settled(t, h)
	if _, rec := hookState(t, client); rec.LastError != "address 127.0.0.1 not allowed (loopback)" || calls.Load() != 1 {
		t.Errorf("second call, the name now 127.0.0.1: error %q, %d calls received; want refused, 1", rec.LastError, calls.Load())
	}
}

// Whatever the receiver answers, the pod records the status code and a
// fixed reason: never the body, which may be anything the address gave
// back (a metadata service's credentials, say).
func TestAHookAnswersBodyIsNeverRecorded(t *testing.T) {
	const secret = "AKIAIOSFODNN7EXAMPLE-s3cret"
	for code, want := range map[int]string{http.StatusInternalServerError: "HTTP 500", http.StatusForbidden: "HTTP 403", http.StatusTeapot: "HTTP 418"} {
		srv, _ := counting(t, code, `{"AccessKeyId":"`+secret+`"}`)
		h, client, a := hookCallTo(t, srv.URL, HookOptions{AllowCIDRs: loopback})
		_, rec := callOnce(t, h, client, a)
		pod, _ := client.CoreV1().Pods("ns").Get(context.Background(), "web-2", metav1.GetOptions{})
		if rec.LastError != want || strings.Contains(fmt.Sprint(pod.Annotations, pod.Labels), "AKIA") {
			t.Errorf("answer %d: recorded %q (annotations %v), want %q and nothing of the body", code, rec.LastError, pod.Annotations, want)
		}
	}
}

// A 3xx answer is a failed attempt: the hook client follows no redirect,
// which would take the call to an address nobody checked the URL of.
func TestAHookRedirectIsNotFollowed(t *testing.T) {
	elsewhere, reached := counting(t, http.StatusOK, "")
	srv := httptest.NewServer(http.RedirectHandler(elsewhere.URL+"/metadata", http.StatusFound))
	t.Cleanup(srv.Close)
	h, client, a := hookCallTo(t, srv.URL, HookOptions{AllowCIDRs: loopback})
	state, rec := callOnce(t, h, client, a)
	if state != v1alpha1.HookPending || rec.LastError != "HTTP 302: redirects are not followed" || reached.Load() != 0 {
		t.Errorf("labelled %s with %q, redirect target called %d times; want Pending, the fixed reason, 0", state, rec.LastError, reached.Load())
	}
}

// A URL's user information and query never reach the pod's record or the
// controller's log, even in an error that quotes the URL.
func TestAHookURLsCredentialsAreNotWrittenAnywhere(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close() // nothing listens there now: connection refused
	h, client, a := hookCallTo(t, "http://ops:hunter2@"+closed+"/switchover?token=s3cret", HookOptions{AllowCIDRs: loopback})
	var mu sync.Mutex
	var logged strings.Builder
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logged.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 4})
	h.start(klog.NewContext(context.Background(), logger), "ns/web", a)
	settled(t, h)
	_, rec := hookState(t, client)
	pod, _ := client.CoreV1().Pods("ns").Get(context.Background(), "web-2", metav1.GetOptions{})
	mu.Lock()
	log := logged.String()
	mu.Unlock()
	if rec.LastError != "connection refused" {
		t.Errorf("recorded %q, want connection refused", rec.LastError)
	}
	if !strings.Contains(log, "http://"+closed+"/switchover") || !strings.Contains(log, "connection refused") {
		t.Errorf("the log does not name the endpoint and the error:\n%s", log)
	}
	for _, secret := range []string{"hunter2", "s3cret"} {
		if strings.Contains(log, secret) || strings.Contains(fmt.Sprint(pod.Annotations), secret) {
			t.Errorf("%q written: log\n%s\nannotations %v", secret, log, pod.Annotations)
		}
	}
}

// Hook calls ignore $HTTP_PROXY unless configured to use a proxy; with
// one, the proxy gets the call (and the policy still judges a literal IP).
func TestAHookUsesAProxyOnlyWhenConfigured(t *testing.T) {
	proxy, proxied := counting(t, http.StatusOK, "")
	direct, reached := counting(t, http.StatusOK, "")
	port := direct.Listener.Addr().(*net.TCPAddr).Port
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)

	h, client, a := hookCallTo(t, fmt.Sprintf("http://hooks.example:%d/switchover", port), HookOptions{AllowCIDRs: loopback})
	h.net.lookup = fixedLookup("127.0.0.1")
	if state, rec := callOnce(t, h, client, a); state != v1alpha1.HookDone || reached.Load() != 1 || proxied.Load() != 0 {
		t.Errorf("without a proxy configured: labelled %s (%q), %d direct and %d proxied calls; want Done, 1 direct", state, rec.LastError, reached.Load(), proxied.Load())
	}

	h, client, a = hookCallTo(t, fmt.Sprintf("http://hooks.example:%d/switchover", port), HookOptions{AllowCIDRs: loopback, ProxyFromEnvironment: true})
	h.net.proxy = http.ProxyURL(mustParseURL(t, proxy.URL))
	if state, rec := callOnce(t, h, client, a); state != v1alpha1.HookDone || proxied.Load() != 1 {
		t.Errorf("with a proxy: labelled %s (%q), %d proxied calls; want Done, 1", state, rec.LastError, proxied.Load())
	}
	h, client, a = hookCallTo(t, "http://169.254.169.254/latest/meta-data/", HookOptions{AllowCIDRs: loopback, ProxyFromEnvironment: true})
	h.net.proxy = http.ProxyURL(mustParseURL(t, proxy.URL))
	if _, rec := callOnce(t, h, client, a); rec.LastError != "address 169.254.169.254 not allowed (cloud metadata)" || proxied.Load() != 1 {
		t.Errorf("a metadata URL through the proxy: %q, %d proxied calls; want refused before the proxy", rec.LastError, proxied.Load())
	}
}

func mustParseURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
