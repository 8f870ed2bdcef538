package pki

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCredentialsAreGeneratedOnceAndReused(t *testing.T) {
	dir := t.TempDir()
	ca, err := LoadOrCreateAuthority(dir, "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{Name: "server", CommonName: "srv", Server: true, DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}}
	pair, err := ca.Issue(id)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(pair.CertFile)
	cert := parse(t, first)
	if err := cert.CheckSignatureFrom(ca.cert); err != nil {
		t.Errorf("not signed by the CA: %v", err)
	}
	if err := cert.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("serving certificate does not cover 127.0.0.1: %v", err)
	}
	if fi, _ := os.Stat(pair.KeyFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v, want 0600", fi.Mode().Perm())
	}
	again, err := LoadOrCreateAuthority(dir, "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair2, err := again.Issue(id)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(pair2.CertFile)
	if string(first) != string(second) {
		t.Error("a second load issued a new certificate instead of reusing the one on disk")
	}
}

func TestClientCertificatesCarryUserAndGroups(t *testing.T) {
	ca, err := LoadOrCreateAuthority(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(Identity{Name: "admin", CommonName: "alice", Groups: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(pair.CertFile)
	cert := parse(t, raw)
	if cert.Subject.CommonName != "alice" || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:masters" {
		t.Errorf("subject %v", cert.Subject)
	}
	if len(cert.ExtKeyUsage) != 1 || cert.ExtKeyUsage[0] != x509.ExtKeyUsageClientAuth {
		t.Errorf("ext key usage %v, want client auth only", cert.ExtKeyUsage)
	}
}

func TestBrokenCredentialsAreReportedNotReplaced(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"a certificate without its key", map[string]string{"ca.crt": "x"}, "ca.key is missing"},
		{"a corrupt certificate", map[string]string{"ca.crt": "garbage", "ca.key": "garbage"}, "ca.crt is corrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadOrCreateAuthority(dir, "test-ca")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to say %q", err, c.want)
			}
			for name, content := range c.files {
				if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != content {
					t.Errorf("%s was rewritten", name)
				}
			}
		})
	}
}

func TestTheSigningKeyIsKeptAcrossLoads(t *testing.T) {
	dir := t.TempDir()
	key, pub, err := LoadOrCreateSigningKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(key)
	key2, pub2, err := LoadOrCreateSigningKey(dir)
	if err != nil || key2 != key || pub2 != pub {
		t.Fatalf("second load: %v %s %s", err, key2, pub2)
	}
	if second, _ := os.ReadFile(key2); string(first) != string(second) {
		t.Error("the service-account key changed between loads")
	}
}

func parse(t *testing.T, raw []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatal("no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
