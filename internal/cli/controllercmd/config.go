package controllercmd

import (
	"errors"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/controller"
)

// Config is the command's configuration: the controller's own (embedded)
// and what a deployed process adds, leader election and metrics.
// NewConfig gives the defaults.
type Config struct {
	controller.Config
	LeaderElect    bool
	LeaseNamespace string
	LeaseName      string
	MetricsAddress string
	// MetricsSecure serves /metrics over TLS to callers the API server
	// authenticates (TokenReview) and authorizes (SubjectAccessReview of
	// get on the non-resource URL /metrics); off, to anyone over HTTP.
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for the secure port; empty
	// means a self-signed certificate made at start.
	MetricsCertDir string
	// Hooks change the controller's client configuration; they are not
	// flags of their own but may add some (see ClientHook).
	Hooks []ClientHook
}

// ClientHook adds flags of its own to the command and changes the
// controller's client configuration before any client is built. The
// ordinal binary installs one that injects API faults for the chaos
// suite; the cluster binary installs none.
type ClientHook interface {
	AddFlags(fs *pflag.FlagSet)
	Validate() error
	Install(rc *rest.Config)
}

// NewConfig returns the defaults: the controller's (controller.NewConfig)
// with leader election on the Lease kube-system/ordinal-statefulset-controller
// and secure metrics on 127.0.0.1:8080.
func NewConfig() Config {
	return Config{Config: controller.NewConfig(), LeaderElect: true, LeaseNamespace: "kube-system",
		LeaseName: "ordinal-statefulset-controller", MetricsAddress: "127.0.0.1:8080", MetricsSecure: true}
}

// AddFlags binds the configuration, and each hook's flags, to fs.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	c.Config.AddFlags(fs)
	fs.BoolVar(&c.LeaderElect, "leader-elect", c.LeaderElect, "run only while holding the Lease, so several replicas can run")
	fs.StringVar(&c.LeaseNamespace, "leader-elect-namespace", c.LeaseNamespace, "namespace of the Lease")
	fs.StringVar(&c.LeaseName, "leader-elect-name", c.LeaseName, "name of the Lease")
	fs.StringVar(&c.MetricsAddress, "metrics-address", c.MetricsAddress, "address serving /metrics, /healthz and /readyz (empty: off)")
	fs.BoolVar(&c.MetricsSecure, "metrics-secure", c.MetricsSecure,
		"serve HTTPS, and /metrics only to callers the API server authenticates and authorizes (TokenReview, SubjectAccessReview of get /metrics); false: plain HTTP to anyone")
	fs.StringVar(&c.MetricsCertDir, "metrics-cert-dir", c.MetricsCertDir,
		"directory with tls.crt and tls.key for --metrics-secure, reloaded when they change (empty: a self-signed certificate)")
	for _, h := range c.Hooks {
		h.AddFlags(fs)
	}
}

// Validate reports every invalid field at once.
func (c *Config) Validate() error {
	errs := []error{c.Config.Validate()}
	if c.LeaderElect && (c.LeaseNamespace == "" || c.LeaseName == "") {
		errs = append(errs, errors.New("--leader-elect needs --leader-elect-namespace and --leader-elect-name"))
	}
	if c.MetricsCertDir != "" && !c.MetricsSecure {
		errs = append(errs, errors.New("--metrics-cert-dir needs --metrics-secure: a certificate serves only HTTPS"))
	}
	for _, h := range c.Hooks {
		errs = append(errs, h.Validate())
	}
	return errors.Join(errs...)
}
