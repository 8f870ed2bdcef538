package plane

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/ordinal-sh/ordinal/internal/controller"
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
	// is ControllerOrdinal: its client limits, workers and status hold
	// (the kubeconfig and namespace fields are not used; the plane gives
	// the controller its own client for every namespace).
	Controller controller.Config
	// FeatureGates set gates of the components in this process, over the
	// plane's own defaults (MaxUnavailableStatefulSet on); see
	// DefaultFeatureGates.
	FeatureGates map[string]bool
	// Log receives one-line progress messages meant for a person; nil
	// discards them.
	Log func(format string, args ...any)
	// UnsafeNoFsync makes etcd skip fsync: much faster on slow disks, but a
	// machine crash can lose the latest writes. For tests and benchmarks.
	UnsafeNoFsync bool
	// Verbosity is the klog level for the components' own logs (0: quiet).
	Verbosity int
	// ComponentQPS, when above 0, replaces the client limits of
	// kube-controller-manager (QPS 20, burst 30) and kube-scheduler (50,
	// 100) with this QPS and twice it as burst. Benchmarks raise it so that
	// the plane's own controllers (the PV binder binds a claim in about
	// three writes, the garbage collector deletes each pod) never limit how
	// fast a StatefulSet controller's work shows.
	ComponentQPS float32
}

// DefaultDataDir is $XDG_DATA_HOME/ordinal, else ~/.local/share/ordinal.
func DefaultDataDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "ordinal")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "ordinal")
	}
	return filepath.Join(home, ".local", "share", "ordinal")
}

// NewConfig returns the defaults.
func NewConfig() Config {
	return Config{
		DataDir:               DefaultDataDir(),
		Port:                  6443,
		Nodes:                 3,
		ReadyDelay:            time.Second,
		StatefulSetController: ControllerOrdinal,
		DNSAddress:            "127.0.0.1:0",
		RealNodeTools:         realnode.DefaultTools(),
		Controller:            controller.NewConfig(),
	}
}

// AddFlags binds c's fields to fs, using c's current values as defaults.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory for etcd data, certificates, the admin kubeconfig and volumes")
	fs.IntVar(&c.Port, "port", c.Port, "kube-apiserver port on 127.0.0.1 (0 picks free ports for the API server and etcd)")
	fs.IntVar(&c.Nodes, "nodes", c.Nodes, "number of simulated (kwok) nodes")
	fs.DurationVar(&c.ReadyDelay, "ready-delay", c.ReadyDelay, "default time a simulated pod takes to turn Ready (per pod: annotation sim.ordinal.dev/ready-delay)")
	fs.StringVar(&c.StatefulSetController, "statefulset-controller", c.StatefulSetController, "who reconciles StatefulSets: ordinal, builtin (upstream, for comparison) or none")
	fs.StringVar(&c.DNSAddress, "dns-address", c.DNSAddress, "cluster DNS (cluster.local from Services, EndpointSlices and pods) on this loopback address, UDP and TCP; port 0 picks a free one; empty runs none")
	fs.BoolVar(&c.RealNode, "real-node", c.RealNode, "add a node that runs real containers (containerd, runc, kubelet, kube-proxy; root, and the tools of hack/ensure-realnode.sh)")
	fs.StringVar(&c.RealNodeTools, "real-node-tools", c.RealNodeTools, "directory of the real node's binaries and images, as hack/ensure-realnode.sh prints it")
	fs.IntVar(&c.Verbosity, "v", c.Verbosity, "log level of the embedded components (0 logs only errors)")
	c.Controller.AddLimitFlags(fs)
}

// Validate reports every invalid field at once.
func (c *Config) Validate() error {
	errs := []error{c.Controller.Validate()}
	if c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir must not be empty"))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d is out of range 0-65535", c.Port))
	}
	if c.Nodes < 0 || c.Nodes > 1000 {
		errs = append(errs, fmt.Errorf("--nodes %d is out of range 0-1000", c.Nodes))
	}
	if c.ComponentQPS < 0 {
		errs = append(errs, fmt.Errorf("component QPS %g must not be negative", c.ComponentQPS))
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
