package podcall

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"time"

	"k8s.io/klog/v2"
)

// hookPolicy decides which addresses a hook call may connect to. It is
// asked for every connection, with the address actually being connected
// to (after name resolution), so a name that resolves to an allowed
// address when checked and to a refused one when used reaches nothing.
type hookPolicy struct {
	allow []netip.Prefix
	// named are the API server's addresses and the controller's own,
	// with what they are.
	named map[netip.Addr]string
	// apiEndpoints are the API server's address and port pairs, refused
	// even inside an allowed range.
	apiEndpoints map[netip.AddrPort]bool
}

// refusedRange is a range the policy refuses unless allowed.
type refusedRange struct {
	prefix netip.Prefix
	what   string
}

// refusedRanges are refused by default, the most specific first.
var refusedRanges = []refusedRange{
	{netip.MustParsePrefix("169.254.169.254/32"), "cloud metadata"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata"},
	{netip.MustParsePrefix("100.100.100.200/32"), "cloud metadata"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
}

// Kinds of addresses learned at start.
const (
	whatAPIServer = "the API server"
	whatOwn       = "the controller's own"
)

// addressRefused is a connection the policy refused.
type addressRefused struct {
	addr netip.Addr
	what string
}

func (e *addressRefused) Error() string {
	return fmt.Sprintf("address %s not allowed (%s)", e.addr, e.what)
}

// check returns nil when a call may connect to ap, else an *addressRefused.
// An IPv4-mapped IPv6 address is judged as the IPv4 address it is.
func (p *hookPolicy) check(ap netip.AddrPort) error {
	a := ap.Addr().Unmap().WithZone("")
	if p.apiEndpoints[netip.AddrPortFrom(a, ap.Port())] {
		return &addressRefused{a, whatAPIServer}
	}
	for _, allowed := range p.allow {
		if allowed.Contains(a) {
			return nil
		}
	}
	for _, r := range refusedRanges {
		if r.prefix.Contains(a) {
			return &addressRefused{a, r.what}
		}
	}
	if what, ok := p.named[a]; ok {
		return &addressRefused{a, what}
	}
	return nil
}

// lookupIP resolves a host name: net.Resolver's LookupNetIP.
type lookupIP func(ctx context.Context, network, host string) ([]netip.Addr, error)

// newHookPolicy builds the policy of opts: the API server's addresses from
// opts.APIServer and $KUBERNETES_SERVICE_HOST (resolved once, now), and the
// controller's own from own (its interfaces' addresses).
func newHookPolicy(ctx context.Context, opts HookOptions, own []netip.Addr, lookup lookupIP) *hookPolicy {
	p := &hookPolicy{allow: opts.AllowCIDRs, named: map[netip.Addr]string{}, apiEndpoints: map[netip.AddrPort]bool{}}
	for _, a := range own {
		p.named[a.Unmap().WithZone("")] = whatOwn
	}
	servers := []string{opts.APIServer}
	if h := os.Getenv("KUBERNETES_SERVICE_HOST"); h != "" {
		servers = append(servers, "https://"+net.JoinHostPort(h, os.Getenv("KUBERNETES_SERVICE_PORT")))
	}
	for _, s := range servers {
		if s == "" {
			continue
		}
		addrs, port, err := resolveServer(ctx, s, lookup)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Resolving the API server's address for the hook address policy; hooks may reach it by another name", "server", s)
		}
		for _, a := range addrs {
			a = a.Unmap().WithZone("")
			p.named[a] = whatAPIServer
			p.apiEndpoints[netip.AddrPortFrom(a, port)] = true
		}
	}
	return p
}

// resolveServer is the addresses and port of a server URL such as
// https://10.96.0.1:443 or a bare host:port.
func resolveServer(ctx context.Context, server string, lookup lookupIP) ([]netip.Addr, uint16, error) {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		u, err = url.Parse("https://" + server)
	}
	if err != nil || u.Hostname() == "" {
		return nil, 0, fmt.Errorf("%q is not a URL", server)
	}
	port := uint16(443)
	if u.Scheme == "http" {
		port = 80
	}
	if s := u.Port(); s != "" {
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil {
			return nil, 0, fmt.Errorf("%q has no valid port", server)
		}
		port = uint16(n)
	}
	if a, err := netip.ParseAddr(u.Hostname()); err == nil {
		return []netip.Addr{a}, port, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := lookup(ctx, "ip", u.Hostname())
	return addrs, port, err
}

// interfaceAddrs are the addresses of this machine's (or pod's) network
// interfaces.
func interfaceAddrs() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		klog.Background().Error(err, "Listing the controller's own addresses for the hook address policy; hooks may reach them")
		return nil
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr())
		}
	}
	return out
}
