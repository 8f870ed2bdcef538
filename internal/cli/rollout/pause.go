package rollout

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func newPause(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "pause SET",
		Short: "Hold a rolling update where it is, by raising the partition",
		Long: `Hold a RollingUpdate set's rollout where it is: the partition is raised to one
above the highest ordinal still at an old revision, so no further pod is
replaced, and the partition to restore is saved in the set's annotation
` + v1alpha1.PausedAnnotation + `. Pods already updated stay updated.
Pausing twice keeps the original saved value. The pause lives only in the
object, so it survives restarts of the controller and of this tool.
OnDelete sets are refused: nothing rolls there unless you delete pods.

An extended set (osts/NAME) has a field for it instead:
spec.updateStrategy.rollingUpdate.paused is set, and the controller updates
no pod while it is (scaling still works; a missing pod comes back at the
current revision). Recreate sets are refused too.`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.act(cmd.Context(), args[0], func(t *setops.Target) (string, error) { return t.Pause(cmd.Context()) })
		},
	}
}

func newResume(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "resume SET",
		Short: "Resume a rollout held by pause or by the failure policy",
		Long: `Restore the partition saved by pause and remove the annotation. Running it on
a set that is not paused changes nothing. For an extended set (osts/NAME),
clear spec.updateStrategy.rollingUpdate.paused (and restore a partition
saved while the set was still apps/v1), and release the hold its failure
policy (onFailure Pause or Rollback) recorded in status.hold: the
annotation ` + v1alpha1.ReleaseHoldAnnotation + ` is set to the hold's ID,
and the controller rolls the failed revision out again. If it fails again,
the controller records a new hold, which that annotation does not release,
so a retry never loops. The spec is not changed for a hold; to roll out
something else instead, change the template (or ordinal rollout undo).`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.act(cmd.Context(), args[0], func(t *setops.Target) (string, error) { return t.Resume(cmd.Context()) })
		},
	}
}

// act loads the set, runs one operation on it and prints its sentence.
func (o *options) act(ctx context.Context, arg string, op func(*setops.Target) (string, error)) error {
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	msg, err := t.Retrying(ctx, func() (string, error) { return op(t) })
	if err != nil {
		return classify(err)
	}
	fmt.Fprintln(o.out, msg)
	return nil
}
