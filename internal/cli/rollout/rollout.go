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
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
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
		Long: `Follow, explain, pause, resume and roll back StatefulSet rollouts, of both
kinds. SET is "web" or "sts/web" (kubectl's spellings: statefulset/web,
statefulsets.apps/web) for apps/v1, "osts/web" or
"statefulsets.apps.ordinal.dev/web" for the extended kind. A bare name is
the apps/v1 set of that name or, when there is none, the extended one.`,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			o.out = cmd.OutOrStdout()
		},
	}
	o.flags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(newStatus(o), newHistory(o), newDiff(o), newUndo(o), newRestart(o),
		newPause(o), newResume(o), newPlan(o))
	return cmd
}

// clients are the API clients of a command and the namespace it works in.
type clients struct {
	kube      kubernetes.Interface
	ext       *ostsclient.Client
	namespace string
}

// client returns the clients of both kinds and the namespace to work in.
func (o *options) client() (clients, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return clients{}, exit.Usage(fmt.Errorf("loading the client configuration: %w", err))
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultRequestTimeout
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return clients{}, exit.Usage(fmt.Errorf("reading the namespace: %w", err))
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return clients{}, exit.Usage(fmt.Errorf("creating the client: %w", err))
	}
	ext, err := ostsclient.NewForConfig(cfg)
	if err != nil {
		return clients{}, exit.Usage(fmt.Errorf("creating the client: %w", err))
	}
	return clients{kube: kube, ext: ext, namespace: ns}, nil
}

// oneSet checks that exactly one SET argument was given: a usage error
// (exit 2) otherwise.
func oneSet(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return exit.Usage(fmt.Errorf("expected one statefulset name, got %d arguments", len(args)))
	}
	return nil
}

// completeSets completes the SET argument with the namespace's sets: the
// apps/v1 ones by name, the extended ones as osts/NAME.
func (o *options) completeSets(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := o.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	list, err := c.kube.AppsV1().StatefulSets(c.namespace).List(cmd.Context(), metav1.ListOptions{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	names := make([]string, 0, len(list.Items))
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	if ext, err := c.ext.StatefulSets(c.namespace).List(cmd.Context(), metav1.ListOptions{}); err == nil {
		for _, s := range ext.Items {
			names = append(names, setops.ExtendedKind.Short()+"/"+s.Name)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
