package plane

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// StatefulSet controller choices for Config.StatefulSetController.
const (
	// ControllerOrdinal runs Ordinal's own controller in the plane.
	ControllerOrdinal = "ordinal"
	// ControllerBuiltin runs upstream's controller inside the in-process
	// kube-controller-manager, for side-by-side comparison.
	ControllerBuiltin = "builtin"
	// ControllerNone runs no StatefulSet controller: attach one from outside.
	ControllerNone = "none"
)

// Config is everything Start needs. NewConfig gives the defaults, AddFlags
// binds the same fields to command-line flags, Validate checks them: the
// three share these fields so flags and defaults cannot drift.
type Config struct {
	// DataDir holds etcd's data, certificates, keys, the admin kubeconfig and
	// provisioned volumes.
	DataDir string
	// Port is the kube-apiserver's port on 127.0.0.1; 0 picks a free one,
	// and then etcd's ports are free ones too.
	Port int
	// Nodes is how many simulated nodes to run.
	Nodes int
	// FQDNNodes is how many of them, the last ones, are named by a fully
	// qualified name (ordinal-node-2.nodes.ordinal.internal) while their
	// kubernetes.io/hostname label is the short name (ordinal-node-2), as
	// on clusters whose nodes are named by their DNS name: what selects
	// a node, and pins a local volume to it, is the label.
	FQDNNodes int
	// Zones is how many zones the simulated nodes are spread over, round
	// robin (label topology.kubernetes.io/zone: zone-0, zone-1, …); 0
	// gives them no zone label.
	Zones int
	// ReadyDelay is how long a simulated container takes from start to
	// Ready unless its pod's annotation says otherwise.
	ReadyDelay time.Duration
	// StatefulSetController picks who reconciles StatefulSets.
	StatefulSetController string
	// DNSAddress is where the cluster DNS answers (UDP and TCP) on the
	// loopback address; port 0 picks a free one; empty runs none.
	DNSAddress string
	// RealNode adds a node that runs real containers (containerd, runc, a
	// kubelet, kube-proxy) beside the simulated ones; see package realnode.
	RealNode bool
	// RealNodeTools is the directory hack/ensure-realnode.sh filled with
	// the real node's binaries and images.
	RealNodeTools string
	// Controller configures Ordinal's controller when StatefulSetController
	// is ControllerOrdinal: its client limits, workers, status hold and
	// hook flags (the kubeconfig and namespace fields are not used; the
	// plane gives the controller its own client for every namespace).
	// Unlike a controller attached to a cluster, the plane's lets hooks
	// call loopback by default (DefaultHookAllowCIDRs): on a laptop the
	// receivers being rehearsed listen there.
	Controller controller.Config
	// FeatureGates set gates of the components in this process, over their
	// release's defaults and the plane's own (DefaultFeatureGates). Ordinal's
	// controller follows the StatefulSetRecreateStrategy gate set here.
	FeatureGates map[string]bool
	// Log receives one-line progress messages meant for a person; nil
	// discards them.
	Log func(format string, args ...any)
	// UnsafeNoFsync makes etcd skip fsync: much faster on slow disks, but a
	// machine crash can lose the latest writes. For tests and benchmarks.
	UnsafeNoFsync bool
	// Verbosity is the klog level for the components' own logs (0: quiet).
	Verbosity int
	// NodeMonitorGracePeriod is how long a node may go without a
	// heartbeat before the node lifecycle controller marks it NotReady
	// (kube-controller-manager's --node-monitor-grace-period). The
	// simulated nodes' Lease lasts four fifths of it and is renewed every
	// quarter of that, a kubelet's proportions at upstream's default.
	NodeMonitorGracePeriod time.Duration
	// ComponentQPS, when above 0, replaces the client limits of
	// kube-controller-manager (QPS 20, burst 30) and kube-scheduler (50,
	// 100) with this QPS and twice it as burst. Benchmarks raise it so that
	// the plane's own controllers (the PV binder binds a claim in about
	// three writes, the garbage collector deletes each pod) never limit how
	// fast a StatefulSet controller's work shows.
	ComponentQPS float32
}

// DefaultDataDir is $XDG_DATA_HOME/ordinal, else $HOME/.local/share/ordinal;
// empty when neither variable is set (see ResolveDataDir).
func DefaultDataDir() string {
	dir, _ := ResolveDataDir(os.Getenv)
	return dir
}

// errNoDataDir says why there is no default data directory.
var errNoDataDir = errors.New("--data-dir is required: neither $XDG_DATA_HOME nor $HOME is set, " +
	"and the plane's certificate authority and keys are never kept in a shared directory such as /tmp")

// ResolveDataDir is the default data directory from the environment getenv
// reads: $XDG_DATA_HOME/ordinal, else $HOME/.local/share/ordinal. With
// neither set it is an error, never a directory others could prepare:
// whoever can write the data directory can plant the certificate authority
// the plane and its kubeconfig trust.
func ResolveDataDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "ordinal"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "share", "ordinal"), nil
	}
	return "", errNoDataDir
}

// minNodeMonitorGracePeriod is the shortest node monitor grace period the
// plane accepts.
const minNodeMonitorGracePeriod = 5 * time.Second

// nodeLeaseDuration is the simulated nodes' Lease duration for the grace
// period g: four fifths of it, a kubelet's 40s at upstream's 50s.
func nodeLeaseDuration(g time.Duration) time.Duration { return g * 4 / 5 }

// nodeMonitorPeriod is how often the node lifecycle controller looks at
// nodes for the grace period g: upstream's 5s, or a tenth of a shorter
// grace period, so that NotReady follows the grace period closely.
func nodeMonitorPeriod(g time.Duration) time.Duration {
	return min(5*time.Second, max(time.Second, g/10))
}

// DefaultHookAllowCIDRs are the ranges the plane's controller lets hooks
// call by default: loopback, where a rehearsal's receivers listen. The
// API server's own port stays refused.
var DefaultHookAllowCIDRs = []string{"127.0.0.0/8", "::1/128"}

// NewConfig returns the defaults.
func NewConfig() Config {
	ctrl := controller.NewConfig()
	ctrl.HookAllowCIDRs = slices.Clone(DefaultHookAllowCIDRs)
	return Config{
		DataDir:               DefaultDataDir(),
		Port:                  6443,
		Nodes:                 3,
		Zones:                 3,
		ReadyDelay:            time.Second,
		StatefulSetController: ControllerOrdinal,
		DNSAddress:            "127.0.0.1:0",
		RealNodeTools:         realnode.DefaultTools(),
		Controller:            ctrl,
		// Upstream's default (pkg/controller/nodelifecycle/config).
		NodeMonitorGracePeriod: 50 * time.Second,
	}
}

// AddFlags binds c's fields to fs, using c's current values as defaults.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory for etcd data, certificates, the admin kubeconfig and volumes")
	fs.IntVar(&c.Port, "port", c.Port, "kube-apiserver port on 127.0.0.1 (0 picks free ports for the API server and etcd)")
	fs.IntVar(&c.Nodes, "nodes", c.Nodes, "number of simulated (kwok) nodes")
	fs.IntVar(&c.FQDNNodes, "fqdn-nodes", c.FQDNNodes,
		"how many of the simulated nodes, the last ones, are named ordinal-node-N."+nodes.FQDNDomain+" while their kubernetes.io/hostname label is ordinal-node-N, as on clusters whose node names are not their hostnames")
	fs.IntVar(&c.Zones, "zones", c.Zones, "zones the simulated nodes are spread over, round robin (label topology.kubernetes.io/zone=zone-0, zone-1, …); 0 for no zone label")
	fs.DurationVar(&c.ReadyDelay, "ready-delay", c.ReadyDelay, "default time a simulated pod takes to turn Ready (per pod: annotation sim.ordinal.dev/ready-delay)")
	fs.StringVar(&c.StatefulSetController, "statefulset-controller", c.StatefulSetController, "who reconciles StatefulSets: ordinal, builtin (upstream, for comparison) or none")
	fs.StringVar(&c.DNSAddress, "dns-address", c.DNSAddress, "cluster DNS (cluster.local from Services, EndpointSlices and pods) on this loopback address, UDP and TCP; port 0 picks a free one; empty runs none")
	fs.BoolVar(&c.RealNode, "real-node", c.RealNode, "add a node that runs real containers (containerd, runc, kubelet, kube-proxy; root, and the tools of hack/ensure-realnode.sh)")
	fs.StringVar(&c.RealNodeTools, "real-node-tools", c.RealNodeTools, "directory of the real node's binaries and images, as hack/ensure-realnode.sh prints it")
	fs.DurationVar(&c.NodeMonitorGracePeriod, "node-monitor-grace-period", c.NodeMonitorGracePeriod,
		"time a node may go without a heartbeat before it is marked NotReady (ordinal node fail stops a simulated node's heartbeats)")
	fs.IntVar(&c.Verbosity, "v", c.Verbosity, "log level of the embedded components (0 logs only errors)")
	if c.FeatureGates == nil {
		c.FeatureGates = map[string]bool{}
	}
	fs.Var(cliflag.NewMapStringBool(&c.FeatureGates), "feature-gates",
		"feature gates of every component (API server, controller-manager, scheduler, either StatefulSet controller), A=true,B=false; e.g. StatefulSetRecreateStrategy=true")
	c.Controller.AddLimitFlags(fs)
	c.Controller.AddHookFlags(fs)
	c.Controller.AddNodeLossFlag(fs)
}

// Validate reports every invalid field at once.
func (c *Config) Validate() error {
	errs := []error{c.Controller.Validate()}
	if c.DataDir == "" {
		if _, err := ResolveDataDir(os.Getenv); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, errors.New("--data-dir must not be empty"))
		}
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d is out of range 0-65535", c.Port))
	}
	if c.Nodes < 0 || c.Nodes > 1000 {
		errs = append(errs, fmt.Errorf("--nodes %d is out of range 0-1000", c.Nodes))
	}
	if c.FQDNNodes < 0 || c.FQDNNodes > c.Nodes {
		errs = append(errs, fmt.Errorf("--fqdn-nodes %d is out of range 0-%d (--nodes)", c.FQDNNodes, c.Nodes))
	}
	if c.Zones < 0 || c.Zones > 1000 {
		errs = append(errs, fmt.Errorf("--zones %d is out of range 0-1000", c.Zones))
	}
	if c.ComponentQPS < 0 {
		errs = append(errs, fmt.Errorf("component QPS %g must not be negative", c.ComponentQPS))
	}
	if c.NodeMonitorGracePeriod < minNodeMonitorGracePeriod {
		errs = append(errs, fmt.Errorf("--node-monitor-grace-period %s is below %s: the simulated nodes renew their Lease every fifth of it, and shorter renewals would make healthy nodes flap", c.NodeMonitorGracePeriod, minNodeMonitorGracePeriod))
	}
	if c.ReadyDelay < 0 {
		errs = append(errs, fmt.Errorf("--ready-delay %s must not be negative", c.ReadyDelay))
	}
	if err := validLoopback(c.DNSAddress); err != nil {
		errs = append(errs, fmt.Errorf("--dns-address: %w", err))
	}
	if c.RealNode && c.DNSAddress == "" {
		errs = append(errs, errors.New("--real-node needs the cluster DNS (--dns-address must not be empty): its kubelet gives pods that DNS"))
	}
	if c.RealNode && c.RealNodeTools == "" {
		errs = append(errs, errors.New("--real-node-tools must not be empty with --real-node"))
	}
	switch c.StatefulSetController {
	case ControllerOrdinal, ControllerBuiltin, ControllerNone:
	default:
		errs = append(errs, fmt.Errorf("--statefulset-controller %q is not one of ordinal, builtin, none", c.StatefulSetController))
	}
	return errors.Join(errs...)
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(format, args...)
	}
}

// validLoopback accepts "" and host:port with a loopback IP host.
func validLoopback(address string) error {
	if address == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s is not a loopback address (such as 127.0.0.1:1053)", address)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is out of range 0-65535", port)
	}
	return nil
}
