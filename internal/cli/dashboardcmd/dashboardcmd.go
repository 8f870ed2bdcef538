// Package dashboardcmd implements `ordinal dashboard`: the live web view
// of rollouts, served on loopback against any kubeconfig, with that
// user's permissions.
package dashboardcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/dashboard"
)

// identity is where the dashboard's credentials come from: a kubeconfig
// context, and optionally a user to impersonate, as kubectl's flags of the
// same names.
type identity struct {
	kubeconfig, context string
	as                  string
	asGroups            []string
}

// New returns the `dashboard` command.
func New() *cobra.Command {
	cfg := dashboard.NewConfig()
	var id identity
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Serve the live web view of StatefulSet rollouts on 127.0.0.1",
		Long: `Serve the rollout dashboard against the cluster of a kubeconfig, as its user
(or the user of --as): every read and every action goes through the API with
that user's permissions, from this machine, as kubectl proxy does. It prints
one URL with a random token; requests without the token are refused. Ctrl-C
stops it.

--read-only hides the actions, refuses their requests and makes the
dashboard's client refuse every write before it leaves the process. For the
API server to refuse writes as well, run it as a user who may only read:
--as (or --context) such a user.`,
		Example: "  ordinal dashboard\n  ordinal dashboard --namespace shop --read-only\n" +
			"  ordinal dashboard --read-only --as jane --as-group viewers\n  ordinal dashboard --address 127.0.0.1:8001",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cfg.Validate(); err != nil {
				return exit.Usage(err)
			}
			rc, err := id.restConfig()
			if err != nil {
				return err
			}
			return Serve(cmd.Context(), cfg, rc, cmd.OutOrStdout())
		},
	}
	cfg.AddFlags(cmd.Flags(), "")
	cmd.Flags().StringVar(&id.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	cmd.Flags().StringVar(&id.context, "context", "", "kubeconfig context (default: the current one)")
	cmd.Flags().StringVar(&id.as, "as", "", "user to impersonate for every read and action, e.g. a user who may only read")
	cmd.Flags().StringArrayVar(&id.asGroups, "as-group", nil, "group to impersonate (repeat for more); needs --as")
	cmd.Flags().StringVarP(&cfg.Namespace, "namespace", "n", "", "show only this namespace (default: all namespaces)")
	return cmd
}

// restConfig loads the client configuration of the kubeconfig's context,
// impersonating --as and --as-group when given.
func (id identity) restConfig() (*rest.Config, error) {
	if len(id.asGroups) > 0 && id.as == "" {
		return nil, exit.Usage(fmt.Errorf("--as-group %v needs --as: Kubernetes impersonates groups only together with a user", id.asGroups))
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = id.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: id.context}
	overrides.AuthInfo.Impersonate = id.as
	overrides.AuthInfo.ImpersonateGroups = id.asGroups
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, exit.Usage(fmt.Errorf("loading the client configuration: %w", err))
	}
	return rc, nil
}

// Serve runs the dashboard as rc's user until ctx ends, after printing its
// URL.
func Serve(ctx context.Context, cfg dashboard.Config, rc *rest.Config, out io.Writer) error {
	s, err := dashboard.Start(ctx, cfg, rc)
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
