package nodecmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// New returns the `node` command and its verbs.
func New() *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Fail, fence and restore nodes, to rehearse the loss of a node",
		Long: `Rehearse the loss of a node on the plane of ordinal up, exactly as it happens on a
real cluster:

  ordinal node fail NODE      the simulated node's heartbeats stop: after the
                              plane's --node-monitor-grace-period it is NotReady,
                              its pods keep their last status, and a pod deleted
                              there stays Terminating
  ordinal node fence NODE     put node.kubernetes.io/out-of-service=nodeshutdown:NoExecute
                              on the node (any cluster): the pod garbage collector
                              force-deletes its terminating pods
  ordinal node restore NODE   the heartbeats start again; the node turns Ready and
                              finishes what its pods were doing
  ordinal node unfence NODE   remove the out-of-service taint (any cluster)

fence and unfence are what kubectl taint does; fail and restore work only on the
plane's simulated nodes. See docs/node-failure.md.`,
	}
	flags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(
		verb(flags, "fail", "Stop a simulated node's heartbeats, as if it lost power or its network", nodes.Fail,
			"node %s fails: no more heartbeats; NotReady after the plane's --node-monitor-grace-period\n"),
		verb(flags, "restore", "Start a failed simulated node's heartbeats again", nodes.Restore,
			"node %s restored: heartbeats again (an out-of-service taint stays until ordinal node unfence)\n"),
		verb(flags, "fence", "Mark a node that is shut down out of service (node.kubernetes.io/out-of-service)", nodes.Fence,
			"node %s fenced: node.kubernetes.io/out-of-service=nodeshutdown:NoExecute\n"),
		verb(flags, "unfence", "Remove the out-of-service taint from a node", nodes.Unfence,
			"node %s unfenced\n"),
	)
	return cmd
}

// verb is one `ordinal node VERB NODE` command running do.
func verb(flags *genericclioptions.ConfigFlags, use, short string, do func(context.Context, kubernetes.Interface, string) error, done string) *cobra.Command {
	return &cobra.Command{
		Use:   use + " NODE",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := flags.ToRESTConfig()
			if err != nil {
				return exit.Usage(fmt.Errorf("loading the client configuration: %w", err))
			}
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return fmt.Errorf("client: %w", err)
			}
			return run(cmd.Context(), cmd.OutOrStdout(), client, args[0], do, done)
		},
	}
}

func run(ctx context.Context, out io.Writer, client kubernetes.Interface, node string, do func(context.Context, kubernetes.Interface, string) error, done string) error {
	if err := do(ctx, client, node); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, done, node)
	return err
}
