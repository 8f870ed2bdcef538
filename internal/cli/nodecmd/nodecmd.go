package nodecmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/drain"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// New returns the `node` command and its verbs.
func New() *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Drain, fail, fence, replace and restore nodes, to rehearse maintenance and the loss of a node",
		Long: `Rehearse the loss of a node on the plane of ordinal up, exactly as it happens on a
real cluster:

  ordinal node drain NODE     cordon the node and evict its pods as kubectl drain
                              does (any cluster): every PodDisruptionBudget is
                              honoured, an eviction a budget refuses is asked
                              again every 5s, and the drain ends when the pods
                              are gone (--timeout bounds it); where the API
                              server serves EvictionRequests, it asks each pod
                              to go with one instead (--via)
  ordinal node cordon NODE    mark the node unschedulable (any cluster)
  ordinal node uncordon NODE  make the node schedulable again (any cluster)
  ordinal node fail NODE      the simulated node's heartbeats stop: after the
                              plane's --node-monitor-grace-period it is NotReady,
                              its pods keep their last status, and a pod deleted
                              there stays Terminating (--no-ready-condition also
                              removes its Ready condition, as a node whose kubelet
                              never reported shows)
  ordinal node fence NODE     put node.kubernetes.io/out-of-service=nodeshutdown:NoExecute
                              on a node that is not Ready (any cluster): the pod
                              garbage collector force-deletes its terminating pods;
                              --force fences a Ready node too
  ordinal node restore NODE   the heartbeats start again; the node turns Ready and
                              finishes what its pods were doing
  ordinal node unfence NODE   remove the out-of-service taint (any cluster)
  ordinal node replace NODE   delete the Node and register it again under its name
                              (a new object, as kubectl delete node and a kubelet
                              that registers again make); --after waits before it
                              registers, --hostname gives it another hostname label
                              (another machine under the old name)

drain, cordon and uncordon are what kubectl does; fence and unfence are what kubectl
taint does; fail, restore and replace work only on the plane's simulated nodes. See
docs/node-failure.md and docs/drains.md.`,
	}
	flags.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(drainCmd(flags),
		verb(flags, "cordon", "Mark a node unschedulable", drain.Cordon, "node/%s cordoned\n"),
		verb(flags, "uncordon", "Make a node schedulable again", drain.Uncordon, "node/%s uncordoned\n"),
		failCmd(flags),
		verb(flags, "restore", "Start a failed simulated node's heartbeats again", nodes.Restore,
			"node %s restored: heartbeats again (an out-of-service taint stays until ordinal node unfence)\n"),
		fenceCmd(flags),
		verb(flags, "unfence", "Remove the out-of-service taint from a node", nodes.Unfence,
			"node %s unfenced\n"),
		replaceCmd(flags),
	)
	return cmd
}

func drainCmd(flags *genericclioptions.ConfigFlags) *cobra.Command {
	var opts drain.Options
	var grace int64
	cmd := verb(flags, "drain", "Cordon a node and evict its pods, honouring disruption budgets, as kubectl drain does",
		func(ctx context.Context, c kubernetes.Interface, name string) error {
			if grace >= 0 {
				opts.GracePeriodSeconds = &grace
			}
			return drain.Drain(ctx, c, name, opts)
		}, "")
	f := cmd.Flags()
	f.DurationVar(&opts.Timeout, "timeout", 0, "give up after this long, naming the pods still on the node (0: wait as long as it takes)")
	f.Int64Var(&grace, "grace-period", -1, "seconds each pod is given to terminate (-1: the pod's own terminationGracePeriodSeconds)")
	f.BoolVar(&opts.IgnoreDaemonSets, "ignore-daemonsets", false, "leave DaemonSet-managed pods on the node instead of refusing the drain")
	f.BoolVar(&opts.DeleteEmptyDirData, "delete-emptydir-data", false, "evict pods with emptyDir volumes (their data is lost) instead of refusing the drain")
	f.BoolVar(&opts.Force, "force", false, "evict pods no controller owns (nothing recreates them) instead of refusing the drain")
	f.StringVar(&opts.Via, "via", drain.ViaAuto, "how pods are asked to go: "+drain.ViaEvictionRequests+
		" (an EvictionRequest per pod, lifecycle.k8s.io/v1alpha1: the responders the pod names first, then the Eviction API), "+
		drain.ViaEvictions+" (the Eviction API, as kubectl drain), or "+drain.ViaAuto+" (eviction requests where the API server serves them)")
	cmd.PreRunE = func(c *cobra.Command, _ []string) error {
		if opts.Timeout < 0 {
			return exit.Usage(fmt.Errorf("--timeout %s is negative", opts.Timeout))
		}
		switch opts.Via {
		case drain.ViaAuto, drain.ViaEvictionRequests, drain.ViaEvictions:
		default:
			return exit.Usage(fmt.Errorf("--via %q is not one of %s, %s, %s", opts.Via, drain.ViaAuto, drain.ViaEvictionRequests, drain.ViaEvictions))
		}
		opts.Out = c.OutOrStdout()
		return nil
	}
	return cmd
}

func failCmd(flags *genericclioptions.ConfigFlags) *cobra.Command {
	var noReady bool
	cmd := verb(flags, "fail", "Stop a simulated node's heartbeats, as if it lost power or its network",
		func(ctx context.Context, c kubernetes.Interface, name string) error {
			if noReady {
				return nodes.DropReadyCondition(ctx, c, name)
			}
			return nodes.Fail(ctx, c, name)
		}, "node %s fails: no more heartbeats; NotReady after the plane's --node-monitor-grace-period\n")
	cmd.Flags().BoolVar(&noReady, "no-ready-condition", false,
		"also remove the node's Ready condition, as a node whose kubelet registered it and never reported shows (the node lifecycle controller marks it Unknown after its startup grace period)")
	return cmd
}

func fenceCmd(flags *genericclioptions.ConfigFlags) *cobra.Command {
	var force bool
	cmd := verb(flags, "fence", "Mark a node that is shut down out of service (node.kubernetes.io/out-of-service)",
		func(ctx context.Context, c kubernetes.Interface, name string) error {
			if force {
				return nodes.ForceFence(ctx, c, name)
			}
			return nodes.Fence(ctx, c, name)
		}, "node %s fenced: node.kubernetes.io/out-of-service=nodeshutdown:NoExecute\n")
	cmd.Flags().BoolVar(&force, "force", false,
		"fence the node although it is Ready: only when you know it is shut down and the control plane has not noticed yet (its pods are deleted without waiting for them)")
	return cmd
}

func replaceCmd(flags *genericclioptions.ConfigFlags) *cobra.Command {
	var opts nodes.ReplaceOptions
	cmd := verb(flags, "replace", "Delete a simulated node and register it again under the same name",
		func(ctx context.Context, c kubernetes.Interface, name string) error {
			return nodes.Replace(ctx, c, name, opts)
		},
		"node %s deleted and registered again (a new Node object)\n")
	cmd.Flags().DurationVar(&opts.After, "after", 0, "how long the node stays deleted before it registers again")
	cmd.Flags().StringVar(&opts.Hostname, "hostname", "",
		"the kubernetes.io/hostname label of the node that registers: another machine under the old name (default: the old label, the same machine)")
	cmd.PreRunE = func(*cobra.Command, []string) error {
		if opts.After < 0 || opts.After > replaceAfterMax {
			return exit.Usage(fmt.Errorf("--after %s is out of range 0-%s", opts.After, replaceAfterMax))
		}
		return nil
	}
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
	if done == "" {
		return nil
	}
	_, err := fmt.Fprintf(out, done, node)
	return err
}

// replaceAfterMax bounds --after: a rehearsal, not a way to leave a node
// deleted.
const replaceAfterMax = 10 * time.Minute
