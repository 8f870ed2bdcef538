package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/ostsclient"
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
	// Workers is how many sets are synced concurrently.
	Workers int
	// StatusHold is how long a count-only status change may wait while
	// requests queue for QPS tokens (Options.StatusHold).
	StatusHold time.Duration
	// Namespace limits the controller to one namespace; "" means all.
	Namespace string
	// AppsV1 makes the controller manage apps/v1 StatefulSets. Off, it
	// leaves them to kube-controller-manager's controller (for clusters
	// where that cannot be turned off) and manages only the extended kind.
	AppsV1 bool
}

// NewConfig returns the defaults: kube-controller-manager's client limits
// (QPS 20, burst 30) and worker count (5), and DefaultStatusHold.
func NewConfig() Config {
	return Config{QPS: 20, Burst: 30, Workers: 5, StatusHold: DefaultStatusHold, AppsV1: true}
}

// AddFlags binds every field to fs, using c's current values as defaults.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "kubeconfig file; empty means in-cluster configuration, then $KUBECONFIG")
	c.AddLimitFlags(fs)
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "only manage StatefulSets in this namespace (default: all)")
	fs.BoolVar(&c.AppsV1, "manage-apps-v1", c.AppsV1,
		"manage apps/v1 StatefulSets; false leaves them to kube-controller-manager's controller (where it cannot be turned off) and manages only apps.ordinal.dev StatefulSets")
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
		"while requests queue for --qps tokens, how long a set's replica counts may wait to be written (0: 1s, as without load); completion, observedGeneration and revisions are written at once")
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
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers must be at least 1, got %d", c.Workers))
	}
	return errors.Join(errs...)
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

// RESTConfig loads the client configuration (see LoadRESTConfig) and sets
// its rate limit (see Limit) and user agent.
func (c *Config) RESTConfig(userAgent string) (*rest.Config, error) {
	rc, err := LoadRESTConfig(c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	c.Limit(rc)
	rc.UserAgent = userAgent
	return rc, nil
}

// Options returns Run's options for this configuration; busy is the
// client's Limiter.Busy (nil when unthrottled). Under a QPS limit one
// set's Parallel batch writes at most Burst pods at once
// (Options.BurstInFlight). Options.Extended is the caller's to set
// (ExtendedClient).
func (c *Config) Options(busy func() bool) Options {
	opts := Options{Workers: c.Workers, Namespace: c.Namespace, Busy: busy, StatusHold: c.StatusHold, SkipAppsV1: !c.AppsV1}
	if c.QPS > 0 {
		opts.BurstInFlight = max(c.Burst, 1)
	}
	return opts
}

// LoadRESTConfig prefers the kubeconfig at path, then the in-cluster
// configuration, then the usual kubeconfig loading rules ($KUBECONFIG,
// ~/.kube/config).
func LoadRESTConfig(path string) (*rest.Config, error) {
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

// ExtendedClient returns the client of the extended kind for Options.Extended,
// sharing rc's rate limiter when Throttle installed one.
func ExtendedClient(rc *rest.Config) (*ostsclient.Client, error) {
	c, err := ostsclient.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("extended StatefulSet client: %w", err)
	}
	return c, nil
}
