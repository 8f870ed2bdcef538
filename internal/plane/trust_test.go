package plane_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// etcdHealth GETs /health from the etcd of the plane in dir with the
// client certificate pki/<client>.crt, trusting only etcd's own authority.
func etcdHealth(t *testing.T, dir, client string) (string, error) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "ports.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ports struct{ Client int }
	if err := json.Unmarshal(raw, &ports); err != nil || ports.Client == 0 {
		t.Fatalf("ports.json %s: %v", raw, err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "pki", "etcd", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("pki/etcd/ca.crt holds no certificate")
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "pki", client+".crt"), filepath.Join(dir, "pki", client+".key"))
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}}
	resp, err := c.Get(fmt.Sprintf("https://127.0.0.1:%d/health", ports.Client))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body))), err
}

// etcd trusts its own authority alone: the API server's etcd client
// certificate is let in, the admin's client certificate (signed by the
// authority the API server trusts for its users) is refused in the TLS
// handshake.
func TestEtcdLetsInOnlyTheAPIServersEtcdClient(t *testing.T) {
	dir := planetest.DataDir()
	got, err := etcdHealth(t, dir, filepath.Join("etcd", "apiserver-etcd-client"))
	if err != nil || !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"health":"true"`) {
		t.Errorf("with the API server's etcd client certificate: %q, %v; want 200 and health true", got, err)
	}
	got, err = etcdHealth(t, dir, "admin")
	if err == nil || !strings.Contains(err.Error(), "tls: ") {
		t.Errorf("with the admin's client certificate: %q, %v; want the TLS handshake refused", got, err)
	}
}
