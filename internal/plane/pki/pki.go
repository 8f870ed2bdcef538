// Package pki creates and loads the certificates and keys of the embedded
// control plane: certificate authorities (each in its own directory),
// serving certificates bound to the loopback address, client certificates
// for each identity, and the service-account signing key. Everything is generated once and kept in the
// data directory, so a restart reuses the same identities and every issued
// token and kubeconfig stays valid.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// validity is how long generated certificates last. A local plane lives as
// long as its data directory; ten years keeps it from expiring under a user.
const validity = 10 * 365 * 24 * time.Hour

// Pair is a PEM certificate and key on disk.
type Pair struct {
	CertFile string
	KeyFile  string
}

// Identity describes a certificate to issue from the authority.
type Identity struct {
	// Name is the file stem: <Name>.crt and <Name>.key.
	Name string
	// CommonName is the subject CN; for client certificates the user name.
	CommonName string
	// Groups become the subject organizations; for client certificates the
	// user's groups.
	Groups []string
	// Server makes a serving certificate for DNSNames and IPs.
	Server   bool
	DNSNames []string
	IPs      []net.IP
}

// Authority is a certificate authority whose key lives in Dir.
type Authority struct {
	Dir  string
	cert *x509.Certificate
	key  crypto.Signer
}

// CAFile is the path of the authority's certificate.
func (a *Authority) CAFile() string { return filepath.Join(a.Dir, "ca.crt") }

// LoadOrCreateAuthority loads ca.crt/ca.key from dir, creating them when
// neither exists. A half-present or unparsable pair is an error: regenerating
// it would silently invalidate every credential already handed out.
func LoadOrCreateAuthority(dir, commonName string) (*Authority, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	a := &Authority{Dir: dir}
	pair := Pair{CertFile: a.CAFile(), KeyFile: filepath.Join(dir, "ca.key")}
	state, err := pairState(pair)
	if err != nil {
		return nil, err
	}
	if state == absent {
		return a, a.create(pair, commonName)
	}
	a.cert, a.key, err = loadPair(pair)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Authority) create(pair Pair, commonName string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating CA key: %w", err)
	}
	tmpl, err := template(commonName, nil)
	if err != nil {
		return err
	}
	tmpl.IsCA = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return fmt.Errorf("signing CA certificate: %w", err)
	}
	a.cert, _ = x509.ParseCertificate(der)
	a.key = key
	return writePair(pair, der, key)
}

// Issue loads the identity's pair from the authority's directory or issues it.
func (a *Authority) Issue(id Identity) (Pair, error) {
	pair := Pair{CertFile: filepath.Join(a.Dir, id.Name+".crt"), KeyFile: filepath.Join(a.Dir, id.Name+".key")}
	state, err := pairState(pair)
	if err != nil {
		return pair, err
	}
	if state == present {
		cert, _, err := loadPair(pair)
		if err != nil {
			return pair, err
		}
		if err := cert.CheckSignatureFrom(a.cert); err != nil {
			return pair, fmt.Errorf("%s was not issued by %s: %w", pair.CertFile, a.CAFile(), err)
		}
		return pair, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pair, fmt.Errorf("generating key for %s: %w", id.Name, err)
	}
	tmpl, err := template(id.CommonName, id.Groups)
	if err != nil {
		return pair, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	if id.Server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		tmpl.DNSNames, tmpl.IPAddresses = id.DNSNames, id.IPs
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return pair, fmt.Errorf("signing certificate for %s: %w", id.Name, err)
	}
	return pair, writePair(pair, der, key)
}

// LoadOrCreateSigningKey returns the paths of the service-account signing key
// and its public half, generating them once.
func LoadOrCreateSigningKey(dir string) (keyFile, pubFile string, err error) {
	keyFile, pubFile = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	state, err := pairState(Pair{CertFile: pubFile, KeyFile: keyFile})
	if err != nil {
		return "", "", err
	}
	if state == present {
		if _, err := readKey(keyFile); err != nil {
			return "", "", err
		}
		return keyFile, pubFile, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("generating service-account key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", "", fmt.Errorf("encoding service-account public key: %w", err)
	}
	if err := writeKey(keyFile, key); err != nil {
		return "", "", err
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	if err := writeFileAtomic(pubFile, pub, 0o600); err != nil {
		return "", "", err
	}
	return keyFile, pubFile, nil
}

// ReadPEM returns the contents of a PEM file, for embedding in a kubeconfig.
func ReadPEM(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, nil
}

type state int

const (
	absent state = iota
	present
)

// pairState reports whether both files exist, neither does, or (an error)
// only one of them does.
func pairState(p Pair) (state, error) {
	certOK, err := exists(p.CertFile)
	if err != nil {
		return absent, err
	}
	keyOK, err := exists(p.KeyFile)
	if err != nil {
		return absent, err
	}
	switch {
	case certOK && keyOK:
		return present, nil
	case !certOK && !keyOK:
		return absent, nil
	case certOK:
		return absent, fmt.Errorf("%s exists but its key %s is missing", p.CertFile, p.KeyFile)
	default:
		return absent, fmt.Errorf("%s exists but its certificate %s is missing", p.KeyFile, p.CertFile)
	}
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("checking %s: %w", path, err)
}

func template(cn string, groups []string) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("generating serial: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn, Organization: groups},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		BasicConstraintsValid: true,
	}, nil
}

func loadPair(p Pair) (*x509.Certificate, crypto.Signer, error) {
	raw, err := os.ReadFile(p.CertFile)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", p.CertFile, err)
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, nil, fmt.Errorf("%s is corrupt: no PEM certificate in it", p.CertFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is corrupt: %w", p.CertFile, err)
	}
	key, err := readKey(p.KeyFile)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

func readKey(path string) (crypto.Signer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, fmt.Errorf("%s is corrupt: no PEM key in it", path)
	}
	key, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s is corrupt: %w", path, err)
	}
	return key, nil
}

func writePair(p Pair, der []byte, key *ecdsa.PrivateKey) error {
	if err := writeKey(p.KeyFile, key); err != nil {
		return err
	}
	return writeFileAtomic(p.CertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding key %s: %w", path, err)
	}
	return writeFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

// writeFileAtomic writes through a temporary file and a rename, so a crash
// never leaves a truncated credential behind.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
