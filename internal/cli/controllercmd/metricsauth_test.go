package controllercmd

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	certutil "k8s.io/client-go/util/cert"
)

// apiServer answers TokenReviews from tokens (token → user) and
// SubjectAccessReviews from allowed (user → paths), and counts them.
type apiServer struct {
	mu                  sync.Mutex
	tokens              map[string]string
	allowed             map[string][]string
	tokenReviews, views int
	asked               []authorizationv1.SubjectAccessReviewSpec
}

func (s *apiServer) client() *fake.Clientset {
	c := fake.NewClientset()
	c.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authenticationv1.TokenReview).DeepCopy()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.tokenReviews++
		if name, ok := s.tokens[r.Spec.Token]; ok {
			r.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
				Username: name, UID: "uid-" + name, Groups: []string{"system:authenticated"}}}
		}
		return true, r, nil
	})
	c.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.views++
		s.asked = append(s.asked, r.Spec)
		for _, p := range s.allowed[r.Spec.User] {
			if r.Spec.NonResourceAttributes != nil && r.Spec.NonResourceAttributes.Path == p && r.Spec.NonResourceAttributes.Verb == "get" {
				r.Status.Allowed = true
			}
		}
		return true, r, nil
	})
	return c
}

func request(t *testing.T, h http.Handler, authorization string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func TestMetricsAreServedOnlyToCallersTheAPIServerAuthorizes(t *testing.T) {
	api := &apiServer{tokens: map[string]string{"scraper-token": "scraper", "other-token": "other"},
		allowed: map[string][]string{"scraper": {"/metrics"}}}
	h := newDelegatedAuth(api.client()).wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("metric 1\n"))
	}))
	for _, tc := range []struct {
		name, authorization string
		code                int
		body                string
	}{
		{"no token", "", http.StatusUnauthorized, "unauthorized"},
		{"another scheme", "Basic c2NyYXBlcjp4", http.StatusUnauthorized, "unauthorized"},
		{"an empty bearer token", "Bearer ", http.StatusUnauthorized, "unauthorized"},
		{"a token the API server does not know", "Bearer made-up", http.StatusUnauthorized, "unauthorized"},
		{"a known user without the permission", "Bearer other-token", http.StatusForbidden, `forbidden: user "other" may not get path "/metrics"`},
		{"a user with the permission", "Bearer scraper-token", http.StatusOK, "metric 1\n"},
		{"the scheme in lower case", "bearer scraper-token", http.StatusOK, "metric 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := request(t, h, tc.authorization)
			if code != tc.code || !strings.Contains(body, tc.body) {
				t.Errorf("%d %q, want %d with %q", code, body, tc.code, tc.body)
			}
		})
	}
	if api.tokenReviews != 3 || api.views != 2 {
		t.Errorf("%d TokenReviews and %d SubjectAccessReviews, want 3 (made-up, other, scraper; the rest cached) and 2", api.tokenReviews, api.views)
	}
	want := authorizationv1.SubjectAccessReviewSpec{User: "scraper", UID: "uid-scraper", Groups: []string{"system:authenticated"},
		Extra: map[string]authorizationv1.ExtraValue{}, NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}
	if got := api.asked[len(api.asked)-1]; got.User != want.User || got.UID != want.UID || *got.NonResourceAttributes != *want.NonResourceAttributes ||
		strings.Join(got.Groups, ",") != "system:authenticated" {
		t.Errorf("asked %+v, want %+v", got, want)
	}
}

// A review's answer is never reused for another user, nor for the same
// user with other groups.
func TestDecisionsAreKeyedByTheWholeReview(t *testing.T) {
	base := authorizationv1.SubjectAccessReviewSpec{User: "a", Groups: []string{"g1", "g2"},
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}
	variants := map[string]func(*authorizationv1.SubjectAccessReviewSpec){
		"user":   func(s *authorizationv1.SubjectAccessReviewSpec) { s.User = "b" },
		"uid":    func(s *authorizationv1.SubjectAccessReviewSpec) { s.UID = "x" },
		"group":  func(s *authorizationv1.SubjectAccessReviewSpec) { s.Groups = []string{"g1"} },
		"joined": func(s *authorizationv1.SubjectAccessReviewSpec) { s.Groups = []string{"g1g2"} },
		"extra": func(s *authorizationv1.SubjectAccessReviewSpec) {
			s.Extra = map[string]authorizationv1.ExtraValue{"k": {"v"}}
		},
		"path":       func(s *authorizationv1.SubjectAccessReviewSpec) { s.NonResourceAttributes.Path = "/other" },
		"verb":       func(s *authorizationv1.SubjectAccessReviewSpec) { s.NonResourceAttributes.Verb = "post" },
		"user+group": func(s *authorizationv1.SubjectAccessReviewSpec) { s.User, s.Groups = "ag", []string{"1", "g2"} },
	}
	key := decisionKey(base)
	for name, change := range variants {
		s := base
		s.Groups = append([]string(nil), base.Groups...)
		attrs := *base.NonResourceAttributes
		s.NonResourceAttributes = &attrs
		change(&s)
		if decisionKey(s) == key {
			t.Errorf("a review with another %s shares the key", name)
		}
	}
	reordered := base
	reordered.Groups = []string{"g2", "g1"}
	if decisionKey(reordered) != key {
		t.Error("the same groups in another order have another key")
	}
}

// writePair writes a self-signed pair for host into dir.
func writePair(t *testing.T, dir, host string) {
	t.Helper()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(host, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Written through a rename, as the kubelet updates a Secret volume.
	for name, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		tmp := filepath.Join(dir, name+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// servedName is the common name of the certificate a TLS server at addr
// presents.
func servedName(t *testing.T, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test reads the certificate, it does not trust it
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Subject.CommonName
}

// The certificate of --metrics-cert-dir is served, and a renewed one is
// served from the next connection on, without a restart; a directory
// without a pair is refused at start.
func TestTheMetricsCertificateIsReloadedWhenItsFilesChange(t *testing.T) {
	dir := t.TempDir()
	if _, err := servingTLS(dir); err == nil || !strings.Contains(err.Error(), "metrics certificate") {
		t.Errorf("an empty --metrics-cert-dir: %v, want an error naming the metrics certificate", err)
	}
	writePair(t, dir, "first.example")
	cfg, err := servingTLS(dir)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	addr := l.Addr().String()
	if got := servedName(t, addr); !strings.HasPrefix(got, "first.example") {
		t.Fatalf("serves %q, want first.example's certificate", got)
	}
	// Modification times have a coarse grain on some file systems; the
	// size changes too (another name), which is part of the stamp.
	writePair(t, dir, "renewed.example.org")
	if got := servedName(t, addr); !strings.HasPrefix(got, "renewed.example.org") {
		t.Errorf("after renewal serves %q, want renewed.example.org's certificate", got)
	}
	// A key that does not match keeps the last good pair in service.
	other, _, err := certutil.GenerateSelfSignedCertKey("mismatch.example.net", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, certFile), other, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := servedName(t, addr); !strings.HasPrefix(got, "renewed.example.org") {
		t.Errorf("with a mismatched pair serves %q, want the last good one", got)
	}
}

// Without --metrics-cert-dir the port serves a self-signed certificate for
// this host and the loopback address.
func TestTheSelfSignedMetricsCertificateNamesThisHost(t *testing.T) {
	cfg, err := servingTLS("")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Certificates) != 1 {
		t.Fatalf("%d certificates, want 1", len(cfg.Certificates))
	}
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if err := leaf.VerifyHostname("127.0.0.1"); err != nil {
		t.Error(err)
	}
	if host != "" && !strings.HasPrefix(leaf.Subject.CommonName, host) {
		t.Errorf("common name %q, want this host %q", leaf.Subject.CommonName, host)
	}
}
