package image

import (
	"bytes"
	"encoding/pem"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// CACertificatesPath is where Go's crypto/x509, and most other TLS
// libraries on Linux, look for the system's trusted roots.
const CACertificatesPath = "/etc/ssl/certs/ca-certificates.crt"

// CABundle returns the Mozilla NSS trusted roots, as PEM, from the pinned
// golang.org/x/crypto/x509roots/fallback module: the same bytes on every
// build machine, updated by updating the module. Roots that NSS trusts only
// with a constraint a PEM file cannot express (certificates issued after a
// distrust date) are left out rather than trusted without it.
func CABundle() []byte {
	var buf bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return buf.Bytes()
}
