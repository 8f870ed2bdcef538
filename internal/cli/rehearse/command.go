package rehearse

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// options are the command's flags.
type options struct {
	kubeconfig, context, namespace string
	as                             string
	asGroups                       []string

	manifest    string
	images      []string
	sets        []string
	fails       string
	controllers []string

	progressDeadline time.Duration
	stuckAfter       time.Duration
	timeout          time.Duration
	outputDir        string
	output           string
	keep             bool
}

// New returns the `rehearse` command.
func New() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "rehearse SET",
		Short: "Play a change of a running set on a copy of its shape, under the built-in controller and Ordinal, and forecast it",
		Long: `Read a running StatefulSet (apps/v1 or the extended kind) and what shapes its
rollout, with get and list requests only: its pods, its claims' sizes and classes,
the PodDisruptionBudgets and Services that select it, the nodes' zones, counts and
free room, the events of its last rollout. Learn each pod's start-up (scheduled to
Ready) and shutdown (deleted to gone) from its conditions and events. Build a copy
in a fresh local plane in this process (loopback only, a temporary data directory),
apply the change (-f, --image, --set) and roll it out under each controller, one
after another, each alone on the copy's nodes: upstream's built-in StatefulSet
controller, Ordinal's, and for an apps/v1 set Ordinal's extended kind converted as
ordinal migrate converts it, with onFailure: Rollback and --progress-deadline.

The forecast says, per controller, how the rollout ends (completed, rolled back,
paused, stuck), how long it takes, the fewest Ready and Available pods, what it
waited for and why (in the planner's words: readiness, shutdown, budgets, quorum,
hooks, zones), the budgets it kept or broke and the writes it made; it ends with a
verdict line for a change ticket. It is printed, and saved as SET-rehearsal.json
and SET-rehearsal.svg (a timeline by ordinal, revision and readiness) in
--output-dir. Nothing is written to the source cluster: its client refuses every
request that is not a read before it leaves this process.`,
		Example: `  ordinal rehearse --from-context prod -n shop sts/web --image app=registry.example/app:v2
  ordinal rehearse -n shop osts/db -f db-v2.yaml
  ordinal rehearse -n shop web --set spec.template.spec.containers[0].env[0].value=fast --new-revision-fails
  ordinal rehearse -n shop web --image example/app:v2 --controllers builtin,extended -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, ch, err := o.parse(args[0])
			if err != nil {
				return exit.Usage(err)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), ref, ch)
		},
	}
	o.addFlags(cmd.Flags())
	if f := cmd.Flags().Lookup("new-revision-fails"); f != nil {
		f.NoOptDefVal = shape.Failures[0]
	}
	return cmd
}

func (o *options) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the source cluster's kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&o.context, "from-context", "", "the kubeconfig context of the source cluster (default: the current one)")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "the set's namespace (default: the context's)")
	fs.StringVar(&o.as, "as", "", "read the source as this user (impersonation)")
	fs.StringSliceVar(&o.asGroups, "as-group", nil, "read the source as this group (impersonation; repeat for more)")
	fs.StringVarP(&o.manifest, "filename", "f", "", "a manifest of the set as it should become: its spec replaces the set's (the file's other objects are ignored)")
	fs.StringArrayVar(&o.images, "image", nil, "[CONTAINER=]IMAGE: a container's new image (repeat for more)")
	fs.StringArrayVar(&o.sets, "set", nil, `PATH=VALUE: a field of the set by its path, e.g. spec.template.metadata.annotations["example.com/x"]=y (repeat for more)`)
	fs.StringVar(&o.fails, "new-revision-fails", "", "make the new revision's pods fail: never-ready (without a value), crash-loop, fail or image-pull-error")
	fs.StringSliceVar(&o.controllers, "controllers", nil, "the controllers to play, of builtin, ordinal and extended (default: all three for an apps/v1 set; builtin and extended for an extended one)")
	fs.DurationVar(&o.progressDeadline, "progress-deadline", 0, "the extended kind's progressDeadlineSeconds for an apps/v1 set (default: 3 × the slowest pod's start-up and shutdown, at least 30s)")
	fs.DurationVar(&o.stuckAfter, "stuck-after", 0, "how long no pod may move before a rollout counts as stuck (default: the extended kind's progress deadline plus 15s)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "the longest each controller's run may take, the copy's start included")
	fs.StringVar(&o.outputDir, "output-dir", ".", "where to save SET-rehearsal.json and SET-rehearsal.svg; empty saves nothing")
	fs.StringVarP(&o.output, "output", "o", "text", "what to print: text or json")
	fs.BoolVar(&o.keep, "keep-plane", false, "keep the rehearsal plane's data directory (its logs) and print where")
}

// parse checks the flags and reads the set's reference and the change.
func (o *options) parse(arg string) (setops.Ref, shape.Change, error) {
	ref, err := setops.ParseRef(arg)
	if err != nil {
		return setops.Ref{}, shape.Change{}, err
	}
	ch := shape.Change{Images: o.images, Sets: o.sets, Fails: o.fails}
	if o.manifest != "" {
		if ch.Manifest, err = os.ReadFile(o.manifest); err != nil {
			return setops.Ref{}, shape.Change{}, fmt.Errorf("-f: %w", err)
		}
		ch.ManifestName = o.manifest
	}
	switch {
	case ch.Empty():
		err = fmt.Errorf("nothing to rehearse: give the change with -f, --image or --set (or --new-revision-fails)")
	case o.output != "text" && o.output != "json":
		err = fmt.Errorf("-o %q: want text or json", o.output)
	case o.timeout <= 0:
		err = fmt.Errorf("--timeout %s: want a positive duration", o.timeout)
	case o.progressDeadline < 0 || o.stuckAfter < 0:
		err = fmt.Errorf("--progress-deadline and --stuck-after must not be negative")
	case o.progressDeadline > 0 && o.progressDeadline%time.Second != 0:
		err = fmt.Errorf("--progress-deadline %s: want whole seconds (progressDeadlineSeconds)", o.progressDeadline)
	}
	return ref, ch, err
}
