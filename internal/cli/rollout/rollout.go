package rollout

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
)

// Exit codes of the rollout commands; see the package comment.
const (
	NotFound     = 3
	Forbidden    = 4
	Unreachable  = 5
	RolloutFails = 6
)

// defaultRequestTimeout bounds each API call when --request-timeout is not
// given, so an unreachable server that drops packets fails instead of
// hanging.
const defaultRequestTimeout = 30 * time.Second

// options is what every subcommand shares: connection flags and streams.
type options struct {
	flags *genericclioptions.ConfigFlags
	out   io.Writer
	// now is the clock for ages and restartedAt; tests may replace it.
	now func() time.Time
}

// New returns `rollout` with its subcommands. Connection flags are
// kubectl's (--kubeconfig, --context, -n, --as, ...), so the command works
// the same as `ordinal rollout` and as the plugin `kubectl ordinal rollout`.
func New() *cobra.Command {
	o := &options{flags: genericclioptions.NewConfigFlags(true), now: time.Now}
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Follow, explain, pause, resume and roll back StatefulSet rollouts",
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			o.out = cmd.OutOrStdout()
		},
	}
	o.flags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(newStatus(o), newHistory(o), newDiff(o), newUndo(o), newRestart(o),
		newPause(o), newResume(o), newPlan(o))
	return cmd
}

// client returns a clientset and the namespace to work in.
func (o *options) client() (kubernetes.Interface, string, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return nil, "", exit.Usage(fmt.Errorf("loading the client configuration: %w", err))
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultRequestTimeout
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", exit.Usage(fmt.Errorf("reading the namespace: %w", err))
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", exit.Usage(fmt.Errorf("creating the client: %w", err))
	}
	return c, ns, nil
}

// oneSet checks that exactly one SET argument was given: a usage error
// (exit 2) otherwise.
func oneSet(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return exit.Usage(fmt.Errorf("expected one statefulset name, got %d arguments", len(args)))
	}
	return nil
}

// completeSets completes the SET argument with the namespace's sets.
func (o *options) completeSets(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	client, ns, err := o.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	list, err := client.AppsV1().StatefulSets(ns).List(cmd.Context(), metav1.ListOptions{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	names := make([]string, 0, len(list.Items))
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
