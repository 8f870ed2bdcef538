package podcall

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// fixedLookup resolves every name to addrs.
func fixedLookup(addrs ...string) lookupIP {
	return func(context.Context, string, string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

func TestTheHookAddressPolicy(t *testing.T) {
	own := []netip.Addr{netip.MustParseAddr("10.244.1.7"), netip.MustParseAddr("fd00:10:244::7")}
	deny := newHookPolicy(context.Background(), HookOptions{APIServer: "https://10.96.0.1:443"}, own, fixedLookup())
	byName := newHookPolicy(context.Background(), HookOptions{APIServer: "https://api.cluster.example:6443"}, nil, fixedLookup("192.0.2.10", "2001:db8::10"))
	allow := newHookPolicy(context.Background(), HookOptions{APIServer: "https://10.96.0.1:443",
		AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("10.0.0.0/8")}}, own, fixedLookup())
	for _, tc := range []struct {
		policy *hookPolicy
		addr   string
		want   string // the reason, "" when allowed
	}{
		{deny, "127.0.0.1:8080", "address 127.0.0.1 not allowed (loopback)"},
		{deny, "127.3.2.1:80", "address 127.3.2.1 not allowed (loopback)"},
		{deny, "[::1]:80", "address ::1 not allowed (loopback)"},
		{deny, "169.254.169.254:80", "address 169.254.169.254 not allowed (cloud metadata)"},
		{deny, "[fd00:ec2::254]:80", "address fd00:ec2::254 not allowed (cloud metadata)"},
		{deny, "100.100.100.200:80", "address 100.100.100.200 not allowed (cloud metadata)"},
		{deny, "169.254.10.1:80", "address 169.254.10.1 not allowed (link-local)"},
		{deny, "[fe80::1]:80", "address fe80::1 not allowed (link-local)"},
		{deny, "[fe80::1%eth0]:80", "address fe80::1 not allowed (link-local)"},
		{deny, "0.0.0.0:80", "address 0.0.0.0 not allowed (unspecified)"},
		{deny, "[::]:80", "address :: not allowed (unspecified)"},
		{deny, "[::ffff:127.0.0.1]:80", "address 127.0.0.1 not allowed (loopback)"},
		{deny, "[::ffff:169.254.169.254]:80", "address 169.254.169.254 not allowed (cloud metadata)"},
		{deny, "10.96.0.1:443", "address 10.96.0.1 not allowed (the API server)"},
		{deny, "10.96.0.1:8080", "address 10.96.0.1 not allowed (the API server)"},
		{deny, "10.244.1.7:8080", "address 10.244.1.7 not allowed (the controller's own)"},
		{deny, "[fd00:10:244::7]:8080", "address fd00:10:244::7 not allowed (the controller's own)"},
		{deny, "10.244.2.9:8080", ""},
		{deny, "[2001:db8::1]:443", ""},
		{deny, "192.168.1.20:443", ""},
		{byName, "192.0.2.10:6443", "address 192.0.2.10 not allowed (the API server)"},
		{byName, "[2001:db8::10]:6443", "address 2001:db8::10 not allowed (the API server)"},
		{allow, "127.0.0.1:8080", ""},
		{allow, "169.254.169.254:80", ""},
		{allow, "10.244.1.7:8080", ""},
		{allow, "10.96.0.1:8080", ""},
		{allow, "10.96.0.1:443", "address 10.96.0.1 not allowed (the API server)"},
		{allow, "[::1]:80", "address ::1 not allowed (loopback)"},
	} {
		err := tc.policy.check(netip.MustParseAddrPort(tc.addr))
		var refused *addressRefused
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s refused: %v", tc.addr, err)
		case tc.want != "" && (!errors.As(err, &refused) || err.Error() != tc.want):
			t.Errorf("%s: %v, want %q", tc.addr, err, tc.want)
		}
	}
}
