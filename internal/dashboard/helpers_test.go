package dashboard

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// testServer is a dashboard over a fake API holding a three-pod set
// midway through a rollout.
type testServer struct {
	*Server
	api  *fake.Clientset
	base string
	// session is a cookie value the server issued for its token.
	session string
	// client speaks to the server: noRedirect, or over TLS one that
	// trusts any certificate (the test's own, self-signed).
	client *http.Client
}

func startTestServer(t *testing.T, configure func(*Config)) *testServer {
	t.Helper()
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	old := testgen.RevisionOf(set, 1)
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3, CurrentRevision: old.Name, UpdateRevision: old.Name}
	objs := []runtime.Object{set, old}
	for i := int32(0); i < 3; i++ {
		objs = append(objs, testgen.Pod(set, i, testgen.At(old)))
	}
	api := fake.NewClientset(objs...)
	cfg := NewConfig()
	if configure != nil {
		configure(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := startWith(ctx, cfg, api, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Close()
		cancel()
	})
	ts := &testServer{Server: s, api: api, base: "http://" + s.Addr().String(), client: noRedirect}
	if cfg.TLSCertFile != "" {
		ts.base = "https://" + s.Addr().String()
		ts.client = &http.Client{
			Timeout:       noRedirect.Timeout,
			CheckRedirect: noRedirect.CheckRedirect,
			Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // the test's own self-signed certificate
		}
	}
	ts.session = ts.login(t)
	return ts
}

// login trades the token for a session, as a browser opening the printed
// URL does, and returns the cookie's value.
func (ts *testServer) login(t *testing.T) string {
	t.Helper()
	got := ts.do(t, request{method: "GET", path: "/?token=" + ts.guard.token})
	if got.code != http.StatusSeeOther {
		t.Fatalf("trading the token for a session: status %d, body %q", got.code, got.body)
	}
	for _, c := range (&http.Response{Header: got.header}).Cookies() {
		if c.Name == ts.guard.cookie {
			return c.Value
		}
	}
	t.Fatalf("trading the token for a session set no cookie %s: %q", ts.guard.cookie, got.header.Values("Set-Cookie"))
	return ""
}

// request is one HTTP request to the test server.
type request struct {
	method, path string
	header       map[string]string
	cookie       string // value of the session cookie; empty sends none
	body         string
}

type response struct {
	code   int
	header http.Header
	body   string
}

// noRedirect reports redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func (ts *testServer) do(t *testing.T, r request) response {
	t.Helper()
	req, err := http.NewRequest(r.method, ts.base+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if h := r.header["Host"]; h != "" {
		req.Host = h
	}
	if r.cookie != "" {
		req.AddCookie(&http.Cookie{Name: ts.guard.cookie, Value: r.cookie})
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: string(body)}
}

// sameOrigin are the headers a browser sends with a fetch from the page.
func (ts *testServer) sameOrigin(extra map[string]string) map[string]string {
	h := map[string]string{"Origin": ts.base, "Sec-Fetch-Site": "same-origin", csrfHeader: ts.guard.csrf, "Content-Type": "application/json"}
	for k, v := range extra {
		h[k] = v
	}
	return h
}
