// Package dashboardcmd implements `ordinal dashboard`: the live web view
// of rollouts, served on loopback against any kubeconfig, with that
// user's permissions.
package dashboardcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/dashboard"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// New returns the `dashboard` command.
func New() *cobra.Command {
	cfg := dashboard.NewConfig()
	var kubeconfig, kubeContext string
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Serve the live web view of StatefulSet rollouts on 127.0.0.1",
		Long: `Serve the rollout dashboard against the cluster of a kubeconfig, as its user:
every read and every action goes through the API with that user's
permissions. It prints one URL with a random token; requests without the
token are refused. Ctrl-C stops it.`,
		Example: "  ordinal dashboard\n  ordinal dashboard --namespace shop --read-only\n  ordinal dashboard --address 127.0.0.1:8001",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cfg.Validate(); err != nil {
				return exit.Usage(err)
			}
			client, ext, err := newClients(kubeconfig, kubeContext)
			if err != nil {
				return err
			}
			return Serve(cmd.Context(), cfg, client, ext, cmd.OutOrStdout())
		},
	}
	cfg.AddFlags(cmd.Flags(), "")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&kubeContext, "context", "", "kubeconfig context (default: the current one)")
	cmd.Flags().StringVarP(&cfg.Namespace, "namespace", "n", "", "show only this namespace (default: all namespaces)")
	return cmd
}

// newClients returns the clients of both kinds of StatefulSet.
func newClients(kubeconfig, kubeContext string) (kubernetes.Interface, *ostsclient.Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	rest, err := loader.ClientConfig()
	if err != nil {
		return nil, nil, exit.Usage(fmt.Errorf("loading the client configuration: %w", err))
	}
	client, err := kubernetes.NewForConfig(rest)
	if err != nil {
		return nil, nil, exit.Usage(fmt.Errorf("creating the client: %w", err))
	}
	ext, err := ostsclient.NewForConfig(rest)
	if err != nil {
		return nil, nil, exit.Usage(fmt.Errorf("creating the client: %w", err))
	}
	return client, ext, nil
}

// Serve runs the dashboard until ctx ends, after printing its URL. ext
// reaches the extended kind (nil: apps/v1 sets only).
func Serve(ctx context.Context, cfg dashboard.Config, client kubernetes.Interface, ext *ostsclient.Client, out io.Writer) error {
	s, err := dashboard.Start(ctx, cfg, client, ext)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Dashboard: %s (Ctrl-C stops it)\n", s.URL())
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-s.Err():
	}
	if err := s.Close(); runErr == nil {
		runErr = err
	}
	return runErr
}
