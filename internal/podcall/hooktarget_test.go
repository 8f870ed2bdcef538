package podcall

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// servingCert is a CA's PEM and a certificate it signed for names.
func servingCert(t *testing.T, names ...string) ([]byte, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hooks-ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}
}

// hookService is the Service hooks with port 8443 (named https), whose
// EndpointSlice has the ready endpoints addrs at target port.
func hookService(port int, addrs ...string) []runtime.Object {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hooks", Namespace: "ns"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 8443}}}}
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "hooks-1", Namespace: "ns", Labels: map[string]string{discoveryv1.LabelServiceName: "hooks"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: new("http"), Port: new(int32(1))}, {Name: new("https"), Port: new(int32(port))}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.9.9.9"}, Conditions: discoveryv1.EndpointConditions{Ready: new(false)}}}}
	for _, a := range addrs {
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{a}})
	}
	return []runtime.Object{svc, slice}
}

// A service hook calls a ready endpoint of the Service's port, over TLS
// verified against its caBundle for <name>.<namespace>.svc, with that
// name as the Host.
func TestAServiceHookCallsAReadyEndpointOverTLS(t *testing.T) {
	ca, cert := servingCert(t, "hooks.ns.svc")
	var mu sync.Mutex
	var host, serverName, path string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		host, serverName, path = r.Host, r.TLS.ServerName, r.URL.Path
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	e := &planner.HookEndpoint{Service: &planner.HookService{Namespace: "ns", Name: "hooks", Port: 8443, Path: "/switchover"}, CABundle: ca}
	h, client, a := hookCallOf(t, e, HookOptions{AllowCIDRs: loopback}, hookService(port, "127.0.0.1")...)
	state, rec := callOnce(t, h, client, a)
	mu.Lock()
	defer mu.Unlock()
	if state != v1alpha1.HookDone || host != "hooks.ns.svc:8443" || serverName != "hooks.ns.svc" || path != "/switchover" {
		t.Errorf("labelled %s (%q); Host %q, TLS server name %q, path %q; want Done, hooks.ns.svc:8443, hooks.ns.svc, /switchover",
			state, rec.LastError, host, serverName, path)
	}

	other, _ := servingCert(t, "hooks.ns.svc")
	e = &planner.HookEndpoint{Service: e.Service, CABundle: other}
	h, client, a = hookCallOf(t, e, HookOptions{AllowCIDRs: loopback}, hookService(port, "127.0.0.1")...)
	if _, rec := callOnce(t, h, client, a); rec.LastError != "TLS certificate not trusted" {
		t.Errorf("another CA's bundle: recorded %q, want TLS certificate not trusted", rec.LastError)
	}
}

// What a service hook cannot call is a failed attempt with a fixed
// reason; the address policy judges an endpoint's address like a URL's.
func TestAServiceHookThatCannotBeCalled(t *testing.T) {
	ext := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hooks", Namespace: "ns"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "hooks.example"}}
	svc := func(port int32) *planner.HookEndpoint {
		return &planner.HookEndpoint{Service: &planner.HookService{Namespace: "ns", Name: "hooks", Port: port, Path: "/"}}
	}
	for _, tc := range []struct {
		name    string
		e       *planner.HookEndpoint
		objects []runtime.Object
		want    string
	}{
		{"no such Service", svc(8443), nil, "service hooks not found"},
		{"an ExternalName Service", svc(8443), []runtime.Object{ext}, "service hooks is ExternalName: a hook calls a Service's endpoints"},
		{"a port the Service lacks", svc(9000), hookService(8443, "10.1.2.3"), "service hooks has no TCP port 9000"},
		{"no ready endpoint", svc(8443), hookService(8443), "service hooks has no ready endpoint for port 8443"},
		{"an endpoint at the metadata address", svc(8443), hookService(80, "169.254.169.254"), "address 169.254.169.254 not allowed (cloud metadata)"},
		{"an endpoint on loopback, not allowed", svc(8443), hookService(80, "127.0.0.1"), "address 127.0.0.1 not allowed (loopback)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, client, a := hookCallOf(t, tc.e, HookOptions{}, tc.objects...)
			if _, rec := callOnce(t, h, client, a); rec.LastError != tc.want {
				t.Errorf("recorded %q, want %q", rec.LastError, tc.want)
			}
		})
	}
}

// An https URL's certificate is verified against its caBundle when set.
func TestAnHTTPSHookURLIsVerifiedAgainstItsCABundle(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	for _, tc := range []struct {
		name     string
		caBundle []byte
		want     string
	}{
		{"its CA", ca, ""},
		{"no bundle: the system's roots", nil, "TLS certificate not trusted"},
		{"a bundle with no certificate", []byte("not PEM"), "caBundle holds no PEM certificate"},
	} {
		h, client, a := hookCallOf(t, &planner.HookEndpoint{URL: srv.URL + "/x", CABundle: tc.caBundle}, HookOptions{AllowCIDRs: loopback})
		if _, rec := callOnce(t, h, client, a); rec.LastError != tc.want {
			t.Errorf("%s: recorded %q, want %q", tc.name, rec.LastError, tc.want)
		}
	}
}
