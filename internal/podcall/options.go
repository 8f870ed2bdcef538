package podcall

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/types"
)

// HookOptions say where http lifecycle hooks may call and with which
// identity. The zero value is the safe default: no proxy, no token, and
// every address the policy refuses stays refused.
type HookOptions struct {
	// AllowCIDRs are ranges hooks may call although the address policy
	// refuses them: loopback, link-local, unspecified, cloud metadata, the
	// API server's addresses and the controller's own. The API server's
	// endpoint itself (its address and port) stays refused.
	AllowCIDRs []netip.Prefix
	// ProxyFromEnvironment sends calls through $HTTPS_PROXY/$HTTP_PROXY
	// (minus $NO_PROXY). The policy then checks the proxy's address and a
	// URL's literal IP, and the proxy must check where a host name leads.
	ProxyFromEnvironment bool
	// TokenServiceAccount, when set, is the ServiceAccount whose token
	// (audiences HookTokenAudience and HookTokenAudience/<namespace>) each
	// call carries; the controller must be allowed to create its
	// serviceaccounts/token.
	TokenServiceAccount types.NamespacedName
	// APIServer is the API server's URL (rest.Config.Host): its addresses
	// are refused unless allowed, its endpoint always.
	APIServer string
	// SimulatedPods, when set, is where role probes to simulated pods
	// connect: `ordinal up`'s simulated pods have addresses nothing
	// routes, and answer on a Unix socket instead. Lifecycle hooks never
	// use it.
	SimulatedPods *SimulatedPods
}

// SimulatedPods sends role probes to addresses in Prefix to Socket. The
// address policy still judges the pod's address.
type SimulatedPods struct {
	Prefix netip.Prefix
	Socket string
}

// SimulatedPodsAt is `ordinal up`'s simulated pods (SimulatedPodCIDR)
// answering on socket.
func SimulatedPodsAt(socket string) *SimulatedPods {
	return &SimulatedPods{Prefix: netip.MustParsePrefix(SimulatedPodCIDR), Socket: socket}
}

// SimulatedPodCIDR is the range `ordinal up`'s simulated nodes give pod
// addresses from, and SimulatedPodsSocketName the file name, in its data
// directory, of the socket where those pods answer role probes.
const (
	SimulatedPodCIDR        = "10.244.0.0/16"
	SimulatedPodsSocketName = "simulated-pods.sock"
)
