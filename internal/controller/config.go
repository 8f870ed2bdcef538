package controller

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// Config is the controller's configuration, the one definition every
// command that runs it shares (`ordinal controller`, `ordinal up`, the
// benchmark's contenders). NewConfig gives the defaults, AddFlags binds the
// same fields to flags and Validate checks them, so flags and defaults
// cannot drift.
type Config struct {
	// Kubeconfig is the kubeconfig file; empty means the in-cluster
	// configuration, then the usual loading rules ($KUBECONFIG).
	Kubeconfig string
	// QPS and Burst are the client's token bucket. QPS 0 means unthrottled:
	// no client-side rate limit at all (see Limit).
	QPS   float32
	Burst int
	// APICompression lets the client ask for gzipped responses and watch
	// streams. Off, as kube-controller-manager's clients have it: next to
	// the API server, decompressing every watch event costs the
	// controller CPU and saves no time.
	APICompression bool
	// Workers is how many sets are synced concurrently.
	Workers int
	// StatusHold is how long a count-only status change that no observer
	// acts on (pods created; no count going down, no pod turning Ready)
	// may wait while requests queue for QPS tokens (Options.StatusHold).
	StatusHold time.Duration
	// Namespace limits the controller to one namespace; "" means all.
	Namespace string
	// ReadNodes makes a controller of one namespace read nodes too
	// (Options.Nodes); one of every namespace always does.
	ReadNodes bool
	// NodeLossQuarantine is Options.NodeLossQuarantine.
	NodeLossQuarantine time.Duration
	// AppsV1 makes the controller manage apps/v1 StatefulSets. Off, it
	// leaves them to kube-controller-manager's controller (for clusters
	// where that cannot be turned off) and manages only the extended kind.
	AppsV1 bool
	// HookAllowCIDRs are address ranges http lifecycle hooks may call
	// although the hook address policy refuses them (loopback, link-local,
	// cloud metadata, the API server's and the controller's own
	// addresses); see podcall.HookOptions.
	HookAllowCIDRs []string
	// HookProxyFromEnvironment makes hook calls use $HTTPS_PROXY,
	// $HTTP_PROXY and $NO_PROXY; off, they never go through a proxy.
	HookProxyFromEnvironment bool
	// HookTokenServiceAccount, as namespace/name, is the ServiceAccount
	// whose token (audience HookTokenAudience) every hook call carries;
	// empty sends none.
	HookTokenServiceAccount string
	// SimulatedPodsSocket is the Unix socket where `ordinal up`'s
	// simulated pods answer role probes (podcall.HookOptions.SimulatedPods);
	// empty for any other cluster.
	SimulatedPodsSocket string
	// RoleProbeCalls, RoleProbeWriteQPS and RoleProbeWriteBurst bound the
	// role probe over every set (podcall.RoleProbeOptions): calls in flight at
	// once, and the token bucket of its label, annotation and event
	// writes, apart from the client's own QPS and Burst.
	RoleProbeCalls      int
	RoleProbeWriteQPS   float64
	RoleProbeWriteBurst int
	// FeatureGates are the controller's own feature gates, as
	// kube-controller-manager's --feature-gates: only
	// StatefulSetRecreateStrategy, which is on unless set to false (a set
	// can have type Recreate only if its API server's gate admitted it).
	FeatureGates map[string]bool
}

// GateRecreate is the feature gate of the apps/v1 Recreate update
// strategy (upstream 1.37's alpha).
const GateRecreate = "StatefulSetRecreateStrategy"

// NewConfig returns the defaults: kube-controller-manager's client limits
// (QPS 20, burst 30) and worker count (5), DefaultStatusHold, and the role
// probe's podcall.DefaultRoleProbeCalls, podcall.DefaultRoleProbeWriteQPS and
// podcall.DefaultRoleProbeWriteBurst.
func NewConfig() Config {
	return Config{QPS: 20, Burst: 30, Workers: 5, StatusHold: DefaultStatusHold, AppsV1: true, FeatureGates: map[string]bool{},
		RoleProbeCalls: podcall.DefaultRoleProbeCalls, RoleProbeWriteQPS: podcall.DefaultRoleProbeWriteQPS, RoleProbeWriteBurst: podcall.DefaultRoleProbeWriteBurst,
		NodeLossQuarantine: osts.DefaultNodeLossQuarantine}
}

// AddFlags binds every field to fs, using c's current values as defaults.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "kubeconfig file; empty means in-cluster configuration, then $KUBECONFIG")
	fs.BoolVar(&c.APICompression, "api-compression", c.APICompression,
		"ask the API server for gzipped responses and watch streams (off, as kube-controller-manager's clients: decompressing costs CPU; worth it only over a slow link)")
	c.AddLimitFlags(fs)
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "only manage StatefulSets in this namespace (default: all)")
	fs.BoolVar(&c.ReadNodes, "read-nodes", c.ReadNodes,
		"with --namespace, still list and watch nodes (the account needs that cluster-wide) for extended sets that roll by topology domain (rollingUpdate.topology); a controller of every namespace always does")
	c.AddNodeLossFlag(fs)
	fs.BoolVar(&c.AppsV1, "manage-apps-v1", c.AppsV1,
		"manage apps/v1 StatefulSets; false leaves them to kube-controller-manager's controller (where it cannot be turned off) and manages only apps.ordinal.dev StatefulSets")
	c.AddHookFlags(fs)
	c.AddRoleProbeFlags(fs)
	fs.StringVar(&c.SimulatedPodsSocket, "simulated-pods-socket", c.SimulatedPodsSocket,
		"only beside `ordinal up`: the Unix socket (its data directory's "+podcall.SimulatedPodsSocketName+") where its simulated pods, whose addresses ("+podcall.SimulatedPodCIDR+") nothing routes, answer role probes")
	c.AddGateFlag(fs)
}

// AddNodeLossFlag binds NodeLossQuarantine to --node-loss-quarantine.
// `ordinal up` binds it too, so that a rehearsal need not wait the
// default.
func (c *Config) AddNodeLossFlag(fs *pflag.FlagSet) {
	fs.DurationVar(&c.NodeLossQuarantine, "node-loss-quarantine", c.NodeLossQuarantine,
		"how long a host must have been lost, seen so without a break (no node carries its kubernetes.io/hostname label, or every one that does is NotReady and fenced), before nodeFailurePolicy.volumes: Recreate gives up the claims on it; below "+
			osts.MinNodeLossQuarantine.String()+" (upstream's pod garbage collector's quarantine) only for rehearsals and tests")
}

// AddHookFlags binds the fields that say what http lifecycle hooks may
// call and with which identity: --hook-allow-cidrs,
// --hook-proxy-from-environment and --hook-token-service-account.
func (c *Config) AddHookFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&c.HookAllowCIDRs, "hook-allow-cidrs", c.HookAllowCIDRs,
		"address ranges (CIDRs, comma-separated) that lifecycle hooks may call although they are loopback, link-local, cloud metadata, the API server's or the controller's own, e.g. 127.0.0.0/8,::1/128")
	fs.BoolVar(&c.HookProxyFromEnvironment, "hook-proxy-from-environment", c.HookProxyFromEnvironment,
		"send lifecycle hook calls through $HTTPS_PROXY/$HTTP_PROXY (minus $NO_PROXY); the proxy, not the controller, then checks where a named host leads")
	fs.StringVar(&c.HookTokenServiceAccount, "hook-token-service-account", c.HookTokenServiceAccount,
		"namespace/name of the ServiceAccount whose token (audience "+v1alpha1.HookTokenAudience+") each lifecycle hook call carries as a bearer token; empty sends none")
}

// AddRoleProbeFlags binds the role probe's bounds: --role-probe-calls,
// --role-probe-write-qps and --role-probe-write-burst.
func (c *Config) AddRoleProbeFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.RoleProbeCalls, "role-probe-calls", c.RoleProbeCalls,
		"role probe calls in flight at once, over every set (besides 16 of one set at once)")
	fs.Float64Var(&c.RoleProbeWriteQPS, "role-probe-write-qps", c.RoleProbeWriteQPS,
		"role label and annotation patches, and their events, per second over every set, apart from --qps; a write that finds no token within the probe's period is left to its next round")
	fs.IntVar(&c.RoleProbeWriteBurst, "role-probe-write-burst", c.RoleProbeWriteBurst,
		"burst of --role-probe-write-qps (at least 2: a patch and its event)")
}

// AddLimitFlags binds the fields that say how hard the controller works
// against the API server it is given: --qps, --burst, --workers and
// --status-hold-under-load. `ordinal up`, which makes its own API server,
// binds only these.
func (c *Config) AddLimitFlags(fs *pflag.FlagSet) {
	fs.Float32Var(&c.QPS, "qps", c.QPS, "API requests per second (0: unthrottled, no client-side limit)")
	fs.IntVar(&c.Burst, "burst", c.Burst, "API request burst (ignored with --qps 0)")
	fs.IntVar(&c.Workers, "workers", c.Workers, "StatefulSets synced concurrently")
	fs.DurationVar(&c.StatusHold, "status-hold-under-load", c.StatusHold,
		"while requests queue for --qps tokens, how long a set's replica counts may wait to be written when only pods were created (0: 1s, as without load); a count going down, completion, observedGeneration and revisions are written at once, a pod turning Ready within 1s")
}

// AddGateFlag binds FeatureGates to --feature-gates. `ordinal up` binds
// its own flag of that name, for every component it runs, and passes the
// controller's gate on.
func (c *Config) AddGateFlag(fs *pflag.FlagSet) {
	if c.FeatureGates == nil {
		c.FeatureGates = map[string]bool{}
	}
	fs.Var(cliflag.NewMapStringBool(&c.FeatureGates), "feature-gates",
		"the controller's feature gates, as kube-controller-manager's: "+GateRecreate+"=false gives apps/v1 sets of type Recreate upstream's gate-off Warning instead of recreating their pods")
}

// Validate reports every invalid field at once.
func (c *Config) Validate() error {
	var errs []error
	if c.QPS < 0 || c.Burst < 0 {
		errs = append(errs, errors.New("--qps and --burst must not be negative (--qps 0 means unthrottled)"))
	}
	if c.StatusHold < 0 {
		errs = append(errs, fmt.Errorf("--status-hold-under-load must not be negative, got %s", c.StatusHold))
	}
	if c.NodeLossQuarantine < time.Second {
		errs = append(errs, fmt.Errorf("--node-loss-quarantine must be at least 1s, got %s (the default is %s)", c.NodeLossQuarantine, osts.DefaultNodeLossQuarantine))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers must be at least 1, got %d", c.Workers))
	}
	if _, err := parseCIDRs(c.HookAllowCIDRs); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.validateRoleProbe()...)
	if _, err := parseServiceAccount(c.HookTokenServiceAccount); err != nil {
		errs = append(errs, err)
	}
	for name := range c.FeatureGates {
		if name != GateRecreate {
			errs = append(errs, fmt.Errorf("--feature-gates: the controller has no gate %q (it has %s; MaxUnavailableStatefulSet is the API server's, and each set shows it)", name, GateRecreate))
		}
	}
	return errors.Join(errs...)
}

// validateRoleProbe checks the role probe's bounds.
func (c *Config) validateRoleProbe() []error {
	var errs []error
	if c.RoleProbeCalls < 1 {
		errs = append(errs, fmt.Errorf("--role-probe-calls must be at least 1, got %d", c.RoleProbeCalls))
	}
	if c.RoleProbeWriteQPS <= 0 {
		errs = append(errs, fmt.Errorf("--role-probe-write-qps must be positive, got %g", c.RoleProbeWriteQPS))
	}
	if c.RoleProbeWriteBurst < 2 {
		errs = append(errs, fmt.Errorf("--role-probe-write-burst must be at least 2 (a patch and its event), got %d", c.RoleProbeWriteBurst))
	}
	return errs
}

// Limit sets rc's client-side rate limit from QPS and Burst. QPS 0 becomes
// a negative QPS, which client-go reads as "no rate limiter"; left at 0,
// client-go would silently fall back to its default of 5 QPS.
func (c *Config) Limit(rc *rest.Config) {
	rc.QPS, rc.Burst = c.QPS, c.Burst
	if c.QPS == 0 {
		rc.QPS = -1
	}
}

// Client sets rc's rate limit (Limit) and whether it asks for
// compressed responses (APICompression).
func (c *Config) Client(rc *rest.Config) {
	c.Limit(rc)
	rc.DisableCompression = !c.APICompression
}

// RESTConfig loads the client configuration (kubeclient.LoadRESTConfig) and sets
// its rate limit and compression (see Client) and user agent.
func (c *Config) RESTConfig(userAgent string) (*rest.Config, error) {
	rc, err := kubeclient.LoadRESTConfig(c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	c.Client(rc)
	rc.UserAgent = userAgent
	return rc, nil
}

// Options returns Run's options for this configuration, which Validate
// accepted; busy is the client's Limiter.Busy (nil when unthrottled) and
// apiServer the client's rest.Config.Host, whose addresses hooks may not
// call. Under a QPS limit one set's Parallel batch writes at most Burst
// pods at once (Options.BurstInFlight), and a plan builds no more missing
// pods than a sync can start creating in its time budget
// (Options.CreateLimit). Options.Extended is the caller's
// to set (kubeclient.ExtendedClient).
func (c *Config) Options(busy func() bool, apiServer string) Options {
	allow, _ := parseCIDRs(c.HookAllowCIDRs)
	sa, _ := parseServiceAccount(c.HookTokenServiceAccount)
	opts := Options{Workers: c.Workers, Namespace: c.Namespace, Nodes: c.ReadNodes, Busy: busy, StatusHold: c.StatusHold, SkipAppsV1: !c.AppsV1,
		NodeLossQuarantine: c.NodeLossQuarantine,
		Hooks:              podcall.HookOptions{AllowCIDRs: allow, ProxyFromEnvironment: c.HookProxyFromEnvironment, TokenServiceAccount: sa, APIServer: apiServer},
		Release:            planner.Release{RecreateGateOff: !RecreateGate(c.FeatureGates)},
		RoleProbe:          podcall.RoleProbeOptions{Calls: c.RoleProbeCalls, WriteQPS: c.RoleProbeWriteQPS, WriteBurst: c.RoleProbeWriteBurst}}
	if c.SimulatedPodsSocket != "" {
		opts.Hooks.SimulatedPods = podcall.SimulatedPodsAt(c.SimulatedPodsSocket)
	}
	if c.QPS > 0 {
		opts.BurstInFlight = max(c.Burst, 1)
		opts.CreateLimit = CreateLimit(c.QPS, c.Burst)
	}
	return opts
}

// parseCIDRs reads --hook-allow-cidrs.
func parseCIDRs(cidrs []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	var errs []error
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			errs = append(errs, fmt.Errorf("--hook-allow-cidrs: %q is not a CIDR such as 10.0.0.0/8 or fd00::/8", c))
			continue
		}
		out = append(out, p.Masked())
	}
	return out, errors.Join(errs...)
}

// parseServiceAccount reads --hook-token-service-account; "" is none.
func parseServiceAccount(s string) (types.NamespacedName, error) {
	if s == "" {
		return types.NamespacedName{}, nil
	}
	ns, name, ok := strings.Cut(s, "/")
	if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return types.NamespacedName{}, fmt.Errorf("--hook-token-service-account %q is not namespace/name of a ServiceAccount, e.g. ordinal-system/ordinal-controller", s)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// RecreateGate reports whether gates leave the Recreate gate on: unless
// they set it to false.
func RecreateGate(gates map[string]bool) bool {
	on, set := gates[GateRecreate]
	return on || !set
}
