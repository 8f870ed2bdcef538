package rollout

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func newUndo(o *options) *cobra.Command {
	var to int64
	cmd := &cobra.Command{
		Use:   "undo SET",
		Short: "Roll back to the previous revision, or to --to-revision N, as kubectl does",
		Long: `Roll back the pod template, exactly as kubectl rollout undo does for
StatefulSets: the revision's stored data is sent as a strategic merge patch.
The controller then renumbers that revision; no revision is created.
An extended set (osts/NAME) takes no strategic merge patch: the revision's
template replaces spec.template in a JSON patch that first tests the
resourceVersion just read, so a concurrent edit is never overwritten.

A pod at the bad revision that never became Ready is not replaced under
OrderedReady (upstream #67250, "forced rollback"): run
` + "`ordinal rollout plan SET`" + ` afterwards to see whether one blocks.`,
		Example:           "  ordinal rollout undo web\n  ordinal rollout undo web --to-revision 1",
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.undo(cmd.Context(), args[0], to)
		},
	}
	cmd.Flags().Int64Var(&to, "to-revision", 0, "revision to roll back to (0: the previous one)")
	return cmd
}

func (o *options) undo(ctx context.Context, arg string, to int64) error {
	if to < 0 {
		return exit.Usage(fmt.Errorf("unable to find specified revision %d in history", to))
	}
	return o.act(ctx, arg, func(t *setops.Target) (string, error) { return t.Undo(ctx, to) })
}

func newRestart(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "restart SET",
		Short: "Replace every pod, one by one, by stamping the template (kubectl's restartedAt)",
		Long: `Set the pod template annotation ` + setops.RestartedAtAnnotation + ` to now, as
kubectl rollout restart does (for an extended set, osts/NAME, in a JSON merge
patch). The new template is a new revision, so the rolling update replaces
every pod under the set's strategy.`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.act(cmd.Context(), args[0], func(t *setops.Target) (string, error) { return t.Restart(cmd.Context(), o.now()) })
		},
	}
}
