package controllercmd

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"

	certutil "k8s.io/client-go/util/cert"
)

// Files of --metrics-cert-dir: the names of a kubernetes.io/tls Secret's
// keys, so the Secret can be mounted as it is.
const (
	certFile = "tls.crt"
	keyFile  = "tls.key"
)

// servingTLS is the TLS configuration of the secure metrics port: the
// certificate and key in certDir, reloaded when either file changes (a
// renewed Secret needs no restart), or, with no certDir, a self-signed
// certificate made at start for this host, which scrapers cannot verify
// (they skip verification and still authenticate with their token).
func servingTLS(certDir string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if certDir == "" {
		host, _ := os.Hostname()
		if host == "" {
			host = "ordinal-controller"
		}
		certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(host, []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
		if err != nil {
			return nil, fmt.Errorf("making a self-signed metrics certificate: %w", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("loading the self-signed metrics certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
		return cfg, nil
	}
	r := &reloadingCert{cert: filepath.Join(certDir, certFile), key: filepath.Join(certDir, keyFile)}
	if _, err := r.get(nil); err != nil {
		return nil, err
	}
	cfg.GetCertificate = r.get
	return cfg, nil
}

// reloadingCert serves a key pair from files, loading it again when a
// file's modification time or size changes: two stat calls per TLS
// handshake, which a keep-alive scraper makes rarely.
type reloadingCert struct {
	cert, key string
	mu        sync.Mutex
	stamp     string
	pair      *tls.Certificate
}

func (r *reloadingCert) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamp, err := r.stampOf()
	if err == nil && r.pair != nil && stamp == r.stamp {
		return r.pair, nil
	}
	var pair tls.Certificate
	if err == nil {
		pair, err = tls.LoadX509KeyPair(r.cert, r.key)
	}
	if err != nil {
		if r.pair != nil {
			// A Secret being rewritten can show a new certificate beside
			// the old key, or no file, for a moment: keep serving the
			// last good pair.
			return r.pair, nil
		}
		return nil, fmt.Errorf("loading the metrics certificate %s and key %s: %w", r.cert, r.key, err)
	}
	r.pair, r.stamp = &pair, stamp
	return r.pair, nil
}

func (r *reloadingCert) stampOf() (string, error) {
	var stamp string
	for _, f := range []string{r.cert, r.key} {
		fi, err := os.Stat(f)
		if err != nil {
			return "", fmt.Errorf("metrics certificate: %w", err)
		}
		stamp += fmt.Sprintf("%d/%d;", fi.ModTime().UnixNano(), fi.Size())
	}
	return stamp, nil
}
