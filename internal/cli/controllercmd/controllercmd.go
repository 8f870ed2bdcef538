// Package controllercmd implements `ordinal controller`: Ordinal's
// StatefulSet controller against any cluster, with leader election on a
// Lease, Prometheus metrics and health endpoints.
package controllercmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/invariant/faults"
)

// Config is the command's configuration; NewConfig gives the defaults.
type Config struct {
	Kubeconfig     string
	QPS            float32
	Burst          int
	Workers        int
	StatusHold     time.Duration
	Namespace      string
	LeaderElect    bool
	LeaseNamespace string
	LeaseName      string
	MetricsAddress string
	// FaultRate and FaultSeed inject API faults into the controller's own
	// client (hidden flags, for the chaos suite; see internal/invariant/faults).
	FaultRate float64
	FaultSeed int64
}

// NewConfig returns the defaults: kube-controller-manager's client limits
// (QPS 20, burst 30) and worker count (5).
func NewConfig() Config {
	return Config{QPS: 20, Burst: 30, Workers: 5, StatusHold: controller.DefaultStatusHold, LeaderElect: true, LeaseNamespace: "kube-system",
		LeaseName: "ordinal-statefulset-controller", MetricsAddress: "127.0.0.1:8080"}
}

// AddFlags binds the configuration to flags.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "kubeconfig file; empty means in-cluster configuration, then $KUBECONFIG")
	fs.Float32Var(&c.QPS, "qps", c.QPS, "API requests per second")
	fs.IntVar(&c.Burst, "burst", c.Burst, "API request burst")
	fs.IntVar(&c.Workers, "workers", c.Workers, "StatefulSets synced concurrently")
	fs.DurationVar(&c.StatusHold, "status-hold-under-load", c.StatusHold,
		"while requests queue for --qps tokens, how long a set's replica counts may wait to be written (0: 1s, as without load); completion, observedGeneration and revisions are written at once")
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "only manage StatefulSets in this namespace (default: all)")
	fs.BoolVar(&c.LeaderElect, "leader-elect", c.LeaderElect, "run only while holding the Lease, so several replicas can run")
	fs.StringVar(&c.LeaseNamespace, "leader-elect-namespace", c.LeaseNamespace, "namespace of the Lease")
	fs.StringVar(&c.LeaseName, "leader-elect-name", c.LeaseName, "name of the Lease")
	fs.StringVar(&c.MetricsAddress, "metrics-address", c.MetricsAddress, "address serving /metrics, /healthz and /readyz (empty: off)")
	fs.Float64Var(&c.FaultRate, "fault-rate", c.FaultRate, "testing only: fraction of API requests that get an injected fault")
	fs.Int64Var(&c.FaultSeed, "fault-seed", c.FaultSeed, "testing only: seed of the injected faults")
	_ = fs.MarkHidden("fault-rate")
	_ = fs.MarkHidden("fault-seed")
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	if c.QPS < 0 || c.Burst < 0 {
		errs = append(errs, fmt.Errorf("--qps and --burst must not be negative"))
	}
	if c.FaultRate < 0 || c.FaultRate > 1 {
		errs = append(errs, fmt.Errorf("--fault-rate must be within [0, 1], got %g", c.FaultRate))
	}
	if c.StatusHold < 0 {
		errs = append(errs, fmt.Errorf("--status-hold-under-load must not be negative, got %s", c.StatusHold))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers must be at least 1, got %d", c.Workers))
	}
	if c.LeaderElect && (c.LeaseNamespace == "" || c.LeaseName == "") {
		errs = append(errs, fmt.Errorf("--leader-elect needs --leader-elect-namespace and --leader-elect-name"))
	}
	return errors.Join(errs...)
}

// New returns the `controller` command.
func New() *cobra.Command {
	cfg := NewConfig()
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run Ordinal's StatefulSet controller against a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cfg.Validate(); err != nil {
				return err
			}
			return Run(cmd.Context(), cfg)
		},
	}
	cfg.AddFlags(cmd.Flags())
	return cmd
}

// Run runs the controller until ctx ends; with leader election it runs the
// controller only while it leads, and returns when leadership is lost so a
// supervisor restarts it with a clean cache.
func Run(ctx context.Context, cfg Config) error {
	restConfig, err := loadConfig(cfg.Kubeconfig)
	if err != nil {
		return err
	}
	restConfig.QPS, restConfig.Burst = cfg.QPS, cfg.Burst
	restConfig.UserAgent = "ordinal-controller"
	controller.UseProtobuf(restConfig)
	limiter := controller.Throttle(restConfig)
	if cfg.FaultRate > 0 {
		restConfig.Wrap(faults.Wrap(faults.Config{Rate: cfg.FaultRate, Seed: cfg.FaultSeed}))
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("building client: %w", err)
	}
	// The lease gets its own client and token bucket, as
	// kube-controller-manager's leader election does: renewals must never
	// queue behind a burst of pod writes for longer than the renew deadline.
	leaseConfig := rest.CopyConfig(restConfig)
	leaseConfig.RateLimiter, leaseConfig.QPS, leaseConfig.Burst = nil, 5, 10
	leaseConfig.UserAgent = "ordinal-controller/leader-election"
	leaseClient, err := kubernetes.NewForConfig(leaseConfig)
	if err != nil {
		return fmt.Errorf("building lease client: %w", err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("cannot reach the API server at %s: %w", restConfig.Host, err)
	}
	ready := make(chan struct{})
	if cfg.MetricsAddress != "" {
		if err := serveMetrics(ctx, cfg.MetricsAddress, ready); err != nil {
			return err
		}
	}
	opts := controller.Options{Workers: cfg.Workers, Namespace: cfg.Namespace, Busy: limiter.Busy, StatusHold: cfg.StatusHold}
	if !cfg.LeaderElect {
		close(ready)
		return controller.Run(ctx, client, opts)
	}
	return leadAndRun(ctx, client, leaseClient, cfg, opts, ready)
}

func leadAndRun(ctx context.Context, client, leaseClient kubernetes.Interface, cfg Config, opts controller.Options, ready chan struct{}) error {
	host, _ := os.Hostname()
	id := host + "_" + string(uuid.NewUUID())
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, cfg.LeaseNamespace, cfg.LeaseName,
		leaseClient.CoreV1(), leaseClient.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		return fmt.Errorf("building lease lock: %w", err)
	}
	close(ready)
	var runErr error
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { runErr = controller.Run(ctx, client, opts) },
			OnStoppedLeading: func() { klog.FromContext(ctx).Info("Leadership lost or released", "identity", id) },
		},
	})
	if ctx.Err() == nil && runErr == nil {
		runErr = errors.New("lost the leader lease")
	}
	return runErr
}

func serveMetrics(ctx context.Context, addr string, ready <-chan struct{}) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serving metrics on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(controller.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-ready:
			_, _ = w.Write([]byte("ok"))
		default:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	return nil
}

// loadConfig prefers --kubeconfig, then the in-cluster configuration, then
// the usual kubeconfig loading rules ($KUBECONFIG, ~/.kube/config).
func loadConfig(path string) (*rest.Config, error) {
	if path != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("loading kubeconfig %s: %w", path, err)
		}
		return cfg, nil
	}
	if cfg, err := rest.InClusterConfig(); err == nil {
		return cfg, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("no kubeconfig: pass --kubeconfig, set $KUBECONFIG, or run in a cluster: %w", err)
	}
	return cfg, nil
}
