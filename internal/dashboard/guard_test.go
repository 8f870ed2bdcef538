package dashboard

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func TestRequestsWithoutTheTokenAreRefused(t *testing.T) {
	ts := startTestServer(t, nil)
	tok := ts.guard.token
	tests := []struct {
		name string
		req  request
		code int
	}{
		{"no token is unauthorized", request{method: "GET", path: "/api/sets"}, http.StatusUnauthorized},
		{"no token on the page is unauthorized", request{method: "GET", path: "/"}, http.StatusUnauthorized},
		{"no token on a static file is unauthorized", request{method: "GET", path: "/static/app.js"}, http.StatusUnauthorized},
		{"a wrong token in the URL is forbidden", request{method: "GET", path: "/?token=nope"}, http.StatusForbidden},
		{"a wrong cookie is forbidden", request{method: "GET", path: "/api/sets", cookie: "nope"}, http.StatusForbidden},
		{"a wrong bearer token is forbidden", request{method: "GET", path: "/api/sets", header: map[string]string{"Authorization": "Bearer nope"}}, http.StatusForbidden},
		{"a session cookie is admitted", request{method: "GET", path: "/api/sets", cookie: ts.session}, http.StatusOK},
		{"the token as a bearer header is admitted", request{method: "GET", path: "/api/sets", header: map[string]string{"Authorization": "Bearer " + tok}}, http.StatusOK},
		{"another Host header is refused (DNS rebinding)", request{method: "GET", path: "/api/sets", cookie: ts.session, header: map[string]string{"Host": "evil.example:80"}}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ts.do(t, tt.req); got.code != tt.code {
				t.Errorf("%s %s: status %d, want %d; body %q", tt.req.method, tt.req.path, got.code, tt.code, got.body)
			}
		})
	}
}

func TestTheTokenInTheURLBecomesAStrictHttpOnlySessionCookie(t *testing.T) {
	ts := startTestServer(t, nil)
	got := ts.do(t, request{method: "GET", path: "/?token=" + ts.guard.token + "#/x"})
	if got.code != http.StatusSeeOther || got.header.Get("Location") != "/" {
		t.Fatalf("status %d, Location %q; want 303 to / without the token", got.code, got.header.Get("Location"))
	}
	c := got.header.Get("Set-Cookie")
	for _, want := range []string{ts.guard.cookie + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(c, want) {
			t.Errorf("Set-Cookie %q lacks %q", c, want)
		}
	}
	if strings.Contains(c, ts.guard.token) {
		t.Errorf("Set-Cookie %q holds the token", c)
	}
	if strings.Contains(c, "Secure") {
		t.Errorf("Set-Cookie %q is Secure on plain HTTP, which no browser would send back", c)
	}
	page := ts.do(t, request{method: "GET", path: "/", cookie: ts.session})
	if page.code != http.StatusOK || !strings.Contains(page.body, `content="`+ts.guard.csrf+`"`) {
		t.Errorf("page status %d without the CSRF token in it:\n%s", page.code, page.body)
	}
	if strings.Contains(page.body, ts.guard.token) {
		t.Error("the page contains the token itself")
	}
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("Content-Security-Policy %q does not keep the page to its own files", csp)
	}
	if other := ts.login(t); other == ts.session {
		t.Error("two logins got the same session: a session must be a fresh random value")
	}
}

// A session cookie is seen by every server on the host (browsers do not
// isolate cookies by port), so it must not work as the token, and the
// token must not work as a cookie.
func TestASessionAndTheTokenAreNotInterchangeable(t *testing.T) {
	ts := startTestServer(t, nil)
	tests := []struct {
		name string
		req  request
	}{
		{"the token as the cookie", request{method: "GET", path: "/api/sets", cookie: ts.guard.token}},
		{"a session as the URL token", request{method: "GET", path: "/?token=" + ts.session}},
		{"a session as the bearer token", request{method: "GET", path: "/api/sets", header: map[string]string{"Authorization": "Bearer " + ts.session}}},
		{"a session whose signature is altered", request{method: "GET", path: "/api/sets", cookie: ts.session[:len(ts.session)-2] + "AA"}},
		{"a session's id with another session's signature", request{method: "GET", path: "/api/sets", cookie: swapID(t, ts.session, ts.login(t))}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is forbidden", func(t *testing.T) {
			got := ts.do(t, tt.req)
			if got.code != http.StatusForbidden {
				t.Errorf("status %d, want 403; body %q", got.code, got.body)
			}
			if c := got.header.Get("Set-Cookie"); c != "" {
				t.Errorf("a refused request was given a cookie: %q", c)
			}
		})
	}
}

// swapID is a's id with b's signature.
func swapID(t *testing.T, a, b string) string {
	t.Helper()
	idA, _, okA := strings.Cut(a, ".")
	_, macB, okB := strings.Cut(b, ".")
	if !okA || !okB {
		t.Errorf("sessions %q and %q are not id.signature", a, b)
		return a
	}
	return idA + "." + macB
}

func TestASessionFromAnEarlierRunIsRefused(t *testing.T) {
	// Two servers on one fixed port, one after the other, as `ordinal up
	// --dashboard-address 127.0.0.1:PORT` restarted: same cookie name, new
	// token.
	first := startTestServer(t, nil)
	addr := first.Addr().String()
	old := first.session
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := startTestServer(t, func(c *Config) { c.Address = addr })
	if second.guard.cookie != first.guard.cookie {
		t.Fatalf("cookie names %q and %q differ on one port", first.guard.cookie, second.guard.cookie)
	}
	got := second.do(t, request{method: "GET", path: "/api/sets", cookie: old})
	if got.code != http.StatusForbidden || !strings.Contains(got.body, "open the URL ordinal printed") {
		t.Errorf("the earlier run's session: status %d, body %q; want 403 pointing at the printed URL", got.code, got.body)
	}
	if got := second.do(t, request{method: "GET", path: "/api/sets", cookie: second.session}); got.code != http.StatusOK {
		t.Errorf("the new run's session: status %d, body %q", got.code, got.body)
	}
}

func TestActionsNeedASameOriginPostWithTheCSRFHeader(t *testing.T) {
	ts := startTestServer(t, nil)
	tok := ts.session
	pause := "/api/sets/statefulsets.apps/default/web/pause"
	tests := []struct {
		name string
		req  request
		code int
	}{
		{"no CSRF header is refused", request{method: "POST", path: pause, cookie: tok, header: map[string]string{"Origin": ts.base}}, http.StatusForbidden},
		{"a wrong CSRF header is refused", request{method: "POST", path: pause, cookie: tok, header: ts.sameOrigin(map[string]string{csrfHeader: "nope"})}, http.StatusForbidden},
		{"another origin is refused", request{method: "POST", path: pause, cookie: tok, header: ts.sameOrigin(map[string]string{"Origin": "http://evil.example"})}, http.StatusForbidden},
		{"a cross-site fetch is refused", request{method: "POST", path: pause, cookie: tok, header: ts.sameOrigin(map[string]string{"Sec-Fetch-Site": "cross-site"})}, http.StatusForbidden},
		{"the token in the URL does not authorize a POST", request{method: "POST", path: pause + "?token=" + ts.guard.token, header: ts.sameOrigin(nil)}, http.StatusUnauthorized},
		{"another method is refused", request{method: "PUT", path: pause, cookie: tok, header: ts.sameOrigin(nil)}, http.StatusForbidden},
		{"GET does not act", request{method: "GET", path: pause, cookie: tok}, http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ts.do(t, tt.req); got.code != tt.code {
				t.Errorf("status %d, want %d; body %q", got.code, tt.code, got.body)
			}
		})
	}
	if paused(t, ts) {
		t.Fatal("a refused request paused the set")
	}
	t.Run("a same-origin POST with the header pauses the set", func(t *testing.T) {
		got := ts.do(t, request{method: "POST", path: pause, cookie: tok, header: ts.sameOrigin(nil)})
		if got.code != http.StatusOK || !strings.Contains(got.body, "statefulset.apps/web paused at partition 3") {
			t.Errorf("status %d, body %q", got.code, got.body)
		}
		if !paused(t, ts) {
			t.Error("the set is not paused in the API")
		}
	})
}

func TestReadOnlyHidesAndRefusesEveryAction(t *testing.T) {
	ts := startTestServer(t, func(c *Config) { c.ReadOnly = true })
	tok := ts.session
	for _, action := range []string{"pause", "resume", "undo", "restart", "pods/0/delete"} {
		t.Run(action+" is refused", func(t *testing.T) {
			got := ts.do(t, request{method: "POST", path: "/api/sets/statefulsets.apps/default/web/" + action, cookie: tok, header: ts.sameOrigin(nil)})
			if got.code != http.StatusForbidden || !strings.Contains(got.body, "read-only") {
				t.Errorf("status %d, body %q; want 403 saying read-only", got.code, got.body)
			}
		})
	}
	if paused(t, ts) {
		t.Error("a read-only dashboard paused the set")
	}
	t.Run("the page and the set offer no action", func(t *testing.T) {
		page := ts.do(t, request{method: "GET", path: "/", cookie: tok})
		if !strings.Contains(page.body, `name="ordinal-read-only" content="true"`) {
			t.Errorf("the page does not say it is read-only:\n%s", page.body)
		}
		set := ts.do(t, request{method: "GET", path: "/api/sets/statefulsets.apps/default/web", cookie: tok})
		if !strings.Contains(set.body, `"actions":{"pause":false,"resume":false,"undo":false,"restart":false,"deletePod":false}`) {
			t.Errorf("the set offers actions:\n%s", set.body)
		}
	})
}

func TestDeletingAPodIsOnlyForKindsThatOfferIt(t *testing.T) {
	ts := startTestServer(t, nil)
	got := ts.do(t, request{method: "POST", path: "/api/sets/statefulsets.apps/default/web/pods/1/delete", cookie: ts.session, header: ts.sameOrigin(nil)})
	if got.code != http.StatusNotFound || !strings.Contains(got.body, "deleting a chosen pod of statefulsets.apps") {
		t.Errorf("status %d, body %q; want 404 naming the missing capability", got.code, got.body)
	}
	if _, err := ts.api.CoreV1().Pods("default").Get(context.Background(), "web-1", metav1.GetOptions{}); err != nil {
		t.Errorf("web-1: %v", err)
	}
}

func paused(t *testing.T, ts *testServer) bool {
	t.Helper()
	set, err := ts.api.AppsV1().StatefulSets("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, ok := set.Annotations[v1alpha1.PausedAnnotation]
	return ok
}

func TestOverTLSTheSessionCookieIsSecure(t *testing.T) {
	cert, key := selfSigned(t)
	ts := startTestServer(t, func(c *Config) { c.TLSCertFile, c.TLSKeyFile = cert, key })
	if ts.client == noRedirect {
		t.Fatal("the test server over TLS speaks plain HTTP")
	}
	got := ts.do(t, request{method: "GET", path: "/?token=" + ts.guard.token})
	c := got.header.Get("Set-Cookie")
	for _, want := range []string{"Secure", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(c, want) {
			t.Errorf("Set-Cookie %q lacks %q", c, want)
		}
	}
	if strings.Contains(c, ts.guard.token) {
		t.Errorf("Set-Cookie %q holds the token", c)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dashboard test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
