package podcall

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// hookNet makes the connections of hook calls: every one through the
// address policy, none through a proxy unless configured, no redirect
// followed, no connection kept for another call.
type hookNet struct {
	policy *hookPolicy
	lookup lookupIP
	// proxy is the proxy of a configured proxy (http.ProxyFromEnvironment),
	// else nil.
	proxy func(*http.Request) (*url.URL, error)
	// simulated, when set, takes the connections to simulated pods (the
	// role probe's only).
	simulated *SimulatedPods
}

// dial connects to address (host:port): a literal IP, or each address a
// name resolves to in turn. The policy judges each address as the socket
// is about to connect (net.Dialer.Control), so what it checks is what is
// reached.
func (n *hookNet) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = n.lookup(ctx, "ip", host); err != nil {
		return nil, err
	}
	d := net.Dialer{Control: n.control}
	var first error
	for _, a := range addrs {
		if sim := n.simulated; sim != nil && sim.Prefix.Contains(a.Unmap()) {
			p, _ := strconv.ParseUint(port, 10, 16)
			if err := n.policy.check(netip.AddrPortFrom(a, uint16(p))); err != nil {
				return nil, err
			}
			var unix net.Dialer
			conn, err := unix.DialContext(ctx, "unix", sim.Socket)
			if err != nil && ctx.Err() == nil {
				return nil, hookFailed("simulated pods' socket "+sim.Socket+" not reachable", err)
			}
			return conn, err
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if first == nil {
		first = &net.DNSError{Err: "no address", Name: host, IsNotFound: true}
	}
	return nil, first
}

// control is the policy at the socket: address is the IP and port being
// connected to.
func (n *hookNet) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("hook address %q: %w", address, err)
	}
	return n.policy.check(ap)
}

// proxyFor is the transport's proxy when configured: the environment's,
// after the policy has judged a URL's literal IP (a name is the proxy's to
// resolve, and to check).
func (n *hookNet) proxyFor(req *http.Request) (*url.URL, error) {
	if a, err := netip.ParseAddr(req.URL.Hostname()); err == nil {
		port, _ := strconv.ParseUint(req.URL.Port(), 10, 16)
		if port == 0 {
			port = 80
			if req.URL.Scheme == "https" {
				port = 443
			}
		}
		if err := n.policy.check(netip.AddrPortFrom(a, uint16(port))); err != nil {
			return nil, err
		}
	}
	return n.proxy(req)
}

// client is an HTTP client for one call to t.
func (n *hookNet) client(t hookTarget) (*http.Client, error) {
	tr := &http.Transport{
		DialContext:            n.dial,
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if n.proxy != nil {
		tr.Proxy = n.proxyFor
	}
	if len(t.caBundle) > 0 || t.serverName != "" {
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.serverName}
	}
	if len(t.caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.caBundle) {
			return nil, hookFailed("caBundle holds no PEM certificate", nil)
		}
		tr.TLSClientConfig.RootCAs = pool
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

// hookFailure is why a call failed: Reason is short and fixed (it goes to
// the pod's annotation, status.blockedBy and events), Detail the error
// behind it, for the controller's log only.
type hookFailure struct {
	Reason string
	Detail error
}

func (f *hookFailure) Error() string { return f.Reason }
func (f *hookFailure) Unwrap() error { return f.Detail }

func hookFailed(reason string, detail error) error {
	return &hookFailure{Reason: reason, Detail: detail}
}

// classify turns a failed request into a hookFailure. The answer's body is
// never read, and a url.Error, which quotes the whole URL, is unwrapped.
func classify(ctx context.Context, err error, timeout time.Duration) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var own *hookFailure
	if errors.As(err, &own) {
		return own
	}
	var refused *addressRefused
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var header tls.RecordHeaderError
	var netErr net.Error
	var reason string
	switch {
	case errors.As(err, &refused):
		reason = refused.Error()
	case ctx.Err() != nil || errors.As(err, &netErr) && netErr.Timeout():
		reason = fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		reason = "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		reason = "host unreachable"
	case errors.As(err, &dns):
		reason = "host name not resolved"
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		reason = "TLS certificate not trusted"
	case errors.As(err, &header):
		reason = "TLS handshake failed"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		reason = "connection closed without an answer"
	default:
		reason = "connection failed"
	}
	return hookFailed(reason, err)
}

// answered judges a response: nil for 2xx, else the status code alone.
func answered(resp *http.Response) error {
	switch c := resp.StatusCode; {
	case c >= 200 && c <= 299:
		return nil
	case c >= 300 && c <= 399:
		return hookFailed(fmt.Sprintf("HTTP %d: redirects are not followed", c), nil)
	default:
		return hookFailed(fmt.Sprintf("HTTP %d", c), nil)
	}
}
