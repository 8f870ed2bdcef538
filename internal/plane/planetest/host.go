package planetest

import (
	"net"
	"net/netip"
	"testing"
)

// HostAddress is an IPv4 address of this machine that an EndpointSlice
// may hold: neither loopback nor link-local, which the API server refuses
// there. A machine without one skips the test, saying why.
func HostAddress(t testing.TB) netip.Addr {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.String())
		if err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() && !p.Addr().IsLinkLocalUnicast() {
			return p.Addr()
		}
	}
	t.Skip("this machine has no IPv4 address but loopback and link-local ones, which an EndpointSlice cannot hold")
	return netip.Addr{}
}
