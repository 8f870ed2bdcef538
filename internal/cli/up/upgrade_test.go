package up_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// etcdStatus GETs /health from the etcd of the plane in dir with the
// client certificate pki/<client>.crt, trusting only etcd's own authority.
func etcdStatus(t *testing.T, dir, client string) (int, error) {
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
	roots.AppendCertsFromPEM(caPEM)
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "pki", client+".crt"), filepath.Join(dir, "pki", client+".key"))
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}}}
	resp, err := c.Get(fmt.Sprintf("https://127.0.0.1:%d/health", ports.Client))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A data directory made before etcd had its own authority (no pki/etcd/,
// etcd's certificates in pki/ signed by the clients' authority) starts:
// the etcd authority and its certificates are made, every object is kept,
// and the old etcd client certificate no longer opens etcd.
func TestADataDirWithoutAnEtcdAuthorityGetsOneAndKeepsItsObjects(t *testing.T) {
	dir := t.TempDir()
	up := startUp(t, dir)
	rc, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	if _, err := kubernetes.NewForConfigOrDie(rc).CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	up.interrupt(t)
	// The old layout: etcd's pair and the API server's etcd client pair in
	// pki/, issued by the clients' authority (here: copies of the admin's
	// pair, which that authority signed), and no pki/etcd/.
	for _, name := range []string{"etcd", "apiserver-etcd-client"} {
		for _, ext := range []string{".crt", ".key"} {
			raw, err := os.ReadFile(filepath.Join(dir, "pki", "admin"+ext))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "pki", name+ext), raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "pki", "etcd")); err != nil {
		t.Fatal(err)
	}

	up = startUp(t, dir)
	defer up.interrupt(t)
	rc, err = clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := kubernetes.NewForConfigOrDie(rc).CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v" {
		t.Errorf("the object made before the upgrade: %v %v", got, err)
	}
	for _, f := range []string{"ca.crt", "ca.key", "etcd.crt", "etcd.key", "apiserver-etcd-client.crt", "apiserver-etcd-client.key"} {
		if _, err := os.Stat(filepath.Join(dir, "pki", "etcd", f)); err != nil {
			t.Errorf("pki/etcd/%s: %v", f, err)
		}
	}
	if code, err := etcdStatus(t, dir, filepath.Join("etcd", "apiserver-etcd-client")); err != nil || code != http.StatusOK {
		t.Errorf("the new etcd client certificate: %d %v, want 200", code, err)
	}
	if code, err := etcdStatus(t, dir, "apiserver-etcd-client"); err == nil {
		t.Errorf("the old etcd client certificate in pki/ still opens etcd: %d", code)
	}
}

// With neither $XDG_DATA_HOME nor $HOME, `ordinal up` without --data-dir
// refuses in one line naming --data-dir, and writes nothing to /tmp.
func TestOrdinalUpWithoutHomeNeedsADataDir(t *testing.T) {
	cmd := ordinalCommand("up", "--port", "0")
	var env []string
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	_, statErr := os.Stat(filepath.Join(os.TempDir(), "ordinal"))
	existed := statErr == nil
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
	}
	out := strings.TrimSpace(stderr.String())
	if strings.Contains(out, "\n") || !strings.Contains(out, "ordinal: --data-dir is required: neither $XDG_DATA_HOME nor $HOME is set") {
		t.Errorf("stderr %q, want one line naming --data-dir", out)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "ordinal")); err == nil && !existed {
		t.Errorf("%s was made", filepath.Join(os.TempDir(), "ordinal"))
	}
}
