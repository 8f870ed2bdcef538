package install

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// serviceAccountToken makes a ServiceAccount and returns a token of it.
func serviceAccountToken(t *testing.T, ctx context.Context, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := planetest.Client().CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}
	got, err := planetest.Client().CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Status.Token
}

// scrape GETs url over TLS without verifying the self-signed certificate,
// with token as bearer token unless it is empty.
func scrape(t *testing.T, url, token string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the controller's certificate is self-signed; the token is what is checked
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// Installed by the chart with its defaults, the controller — run with its
// Deployment's arguments under its ServiceAccount — serves /metrics over
// HTTPS only to a caller the API server authenticates and authorizes: no
// token gets 401, a token whose account may not get /metrics 403, and one
// bound to the chart's metrics-reader ClusterRole the metrics. The probes'
// endpoints answer without a token.
func TestTheSecureMetricsPortServesOnlyAuthorizedScrapers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	manifest := release{name: "metrics", namespace: "metrics-system"}.mustRender(t)
	installForReal(t, ctx, manifest)
	cfg := deploymentConfig(t, manifest)
	if !cfg.MetricsSecure {
		t.Fatal("the chart runs the controller without --metrics-secure")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MetricsAddress = l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.Kubeconfig = serviceAccountKubeconfig(t, "metrics-system", "metrics-controller")
	cfg.Namespace, cfg.LeaderElect = "metrics-apps", false
	startController(t, cfg)

	scraper := serviceAccountToken(t, ctx, "metrics-system", "scraper")
	stranger := serviceAccountToken(t, ctx, "metrics-system", "stranger")
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "scraper-reads-metrics"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "metrics-metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "scraper", Namespace: "metrics-system"}}}
	if _, err := planetest.Client().RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	base := "https://" + cfg.MetricsAddress
	deadline := time.Now().Add(time.Minute)
	for code, _ := scrapeOrZero(base + "/healthz"); code != http.StatusOK; code, _ = scrapeOrZero(base + "/healthz") {
		if time.Now().After(deadline) {
			t.Fatalf("/healthz over HTTPS did not answer 200 within a minute (last %d)", code)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, body := scrape(t, base+"/readyz", ""); code != http.StatusOK || body != "ok" {
		t.Errorf("/readyz without a token = %d %q, want 200 ok", code, body)
	}
	for _, tc := range []struct {
		who, token string
		code       int
		body       string
	}{
		{"no token", "", http.StatusUnauthorized, "unauthorized"},
		{"a token the API server does not know", "not-a-token", http.StatusUnauthorized, "unauthorized"},
		{"an account not bound to the reader role", stranger, http.StatusForbidden,
			`forbidden: user "system:serviceaccount:metrics-system:stranger" may not get path "/metrics"`},
		{"an account bound to the reader role", scraper, http.StatusOK, "\ngo_goroutines "},
	} {
		code, body := scrape(t, base+"/metrics", tc.token)
		if code != tc.code || !strings.Contains(body, tc.body) {
			if len(body) > 300 {
				body = body[:300] + "…"
			}
			t.Errorf("%s: %d %q, want %d with %q", tc.who, code, body, tc.code, tc.body)
		}
	}
	// Plain HTTP is not served on the secure port.
	resp, err := http.Get("http://" + cfg.MetricsAddress + "/metrics")
	if err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP /metrics answered 200")
		}
	}
}

// scrapeOrZero is scrape without a token that reports a connection error
// as code 0, for waiting until the port is served.
func scrapeOrZero(url string) (int, error) {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // see scrape
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}
