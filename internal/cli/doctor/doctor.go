package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

// Names Ordinal's install uses by default (config/, and the chart with the
// release name "ordinal").
const (
	DefaultLeaseName      = "ordinal-statefulset-controller"
	DefaultServiceAccount = "ordinal-system/ordinal-controller"
	// OrdinalEventSource is the component of the events Ordinal's controller
	// writes; the built-in controller's are "statefulset-controller".
	OrdinalEventSource = "ordinal-statefulset-controller"
	builtinEventSource = "statefulset-controller"
	// ordinalFieldManagerPrefix starts the field manager of Ordinal's
	// writes: ordinal-controller (its user agent), or ordinal for the
	// controller `ordinal up` runs.
	ordinalFieldManagerPrefix = "ordinal"
)

// Options are the command's flags.
type Options struct {
	// Lease is namespace/name of Ordinal's Lease; empty looks for
	// DefaultLeaseName in every namespace.
	Lease string
	// ServiceAccount is namespace/name of the controller's account; empty
	// takes the Lease holder's pod's, else DefaultServiceAccount.
	ServiceAccount string
	// Since bounds how old evidence of the built-in controller may be.
	Since time.Duration
	// RequestTimeout bounds each API call.
	RequestTimeout time.Duration
}

// New returns the `doctor` command.
func New() *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	o := Options{Since: time.Hour, RequestTimeout: 15 * time.Second}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that Ordinal has taken over StatefulSets in a cluster",
		Long: `Check, against the kubeconfig's cluster, that the built-in StatefulSet controller
no longer runs, that Ordinal's controller does, that the extended kind's CRD and
the controller's RBAC are in place, and whether the API server keeps
spec.updateStrategy.rollingUpdate.maxUnavailable. Where Ordinal runs with
--manage-apps-v1=false (managed clusters: it manages only apps.ordinal.dev
StatefulSets), the built-in controller is expected to run and its line only
informs. One line per check, then a verdict; exit 1 when a check fails. The
gate check is a server-side dry-run create in the namespace of -n (default:
the context's).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := connect(flags, o)
			if err != nil {
				return err
			}
			report, err := d.Run(cmd.Context())
			report.Print(cmd.OutOrStdout())
			if err != nil {
				return err
			}
			return report.Err()
		},
	}
	flags.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.Lease, "lease", o.Lease, "namespace/name of Ordinal's Lease (default: "+DefaultLeaseName+" in any namespace)")
	cmd.Flags().StringVar(&o.ServiceAccount, "service-account", o.ServiceAccount,
		"namespace/name of the controller's ServiceAccount (default: the Lease holder pod's, else "+DefaultServiceAccount+")")
	cmd.Flags().DurationVar(&o.Since, "since", o.Since, "how far back events and status writes count as signs of the built-in controller")
	return cmd
}

// connect builds the clients from kubectl's connection flags.
func connect(flags *genericclioptions.ConfigFlags, o Options) (*Doctor, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("loading the client configuration: %w", err))
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("reading the namespace: %w", err))
	}
	return NewDoctor(cfg, ns, o)
}

// Doctor runs the checks against one cluster.
type Doctor struct {
	opts      Options
	host      string
	namespace string
	client    kubernetes.Interface
	meta      metadata.Interface
	ext       apiextensionsclient.Interface
	now       func() time.Time
	// poll is how often the Lease is read while waiting for a renewal.
	poll time.Duration
}

// NewDoctor returns a Doctor for the cluster of cfg; namespace is where the
// gate check's dry-run create goes.
func NewDoctor(cfg *rest.Config, namespace string, o Options) (*Doctor, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.Timeout == 0 {
		cfg.Timeout = o.RequestTimeout
	}
	cfg.UserAgent = "ordinal-doctor"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("creating the client: %w", err))
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("creating the metadata client: %w", err))
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("creating the apiextensions client: %w", err))
	}
	return &Doctor{opts: o, host: cfg.Host, namespace: namespace, client: client, meta: meta, ext: ext, now: time.Now, poll: time.Second}, nil
}

func (o Options) validate() error {
	for flag, v := range map[string]string{"--lease": o.Lease, "--service-account": o.ServiceAccount} {
		if _, _, err := splitName(v); v != "" && err != nil {
			return exit.Usage(fmt.Errorf("%s %q: %w", flag, v, err))
		}
	}
	if o.Since <= 0 {
		return exit.Usage(fmt.Errorf("--since must be positive, got %s", o.Since))
	}
	return nil
}

// splitName splits namespace/name.
func splitName(s string) (string, string, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("want namespace/name")
	}
	return ns, name, nil
}

// Run makes every check. The error, when not nil, means the cluster could
// not be reached and the report holds only that line.
func (d *Doctor) Run(ctx context.Context) (Report, error) {
	api, err := d.checkAPI(ctx)
	if err != nil {
		return Report{api}, err
	}
	lease, ordinal := d.checkOrdinal(ctx)
	builtin := d.checkBuiltin(ctx, lease)
	return Report{api, builtin, ordinal, d.checkCRD(ctx, lease.extendedOnly), d.checkRBAC(ctx, lease), d.checkGate(ctx, lease.extendedOnly)}, nil
}
