package rollout

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func newPlan(o *options) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "plan SET",
		Short: "Explain what the controller does next and, when the rollout waits, why",
		Long: `Run Ordinal's planner, the same pure function the controller runs, on the
live set, pods, claims and revisions, and print the next actions in order
and what the rollout is waiting for: which pod, at which revision, in which
state since when, what the policy waits for, and what you can do about it.
Nothing is changed, not even the revision a new template needs.

For an extended set (osts/NAME) the planner runs with the kind's inputs, as
the controller runs it, and a "Rollout safety" section says what
self-healing, the progress deadline and the failure policy (Report, Pause,
Rollback) will do next, which pods block the rollout and the conditions the
controller writes. To see what ordinal scale --remove or --replace would
do before it happens, run that command with --dry-run: it prints this
report for the set as the change would leave it.`,
		Example:           "  ordinal rollout plan web\n  ordinal rollout plan web -o json\n  ordinal rollout plan osts/web",
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			report, err := o.plan(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if output != "" {
				return printObject(o.out, output, report)
			}
			rolloutview.RenderPlan(o.out, report, o.now())
			return nil
		},
	}
	addOutputFlag(cmd, &output)
	return cmd
}

// plan observes the set the way the controller does, with plain List
// calls, and computes its plan without writing anything.
func (o *options) plan(ctx context.Context, arg string) (rolloutview.PlanReport, error) {
	t, err := o.load(ctx, arg)
	if err != nil {
		return rolloutview.PlanReport{}, err
	}
	obs, err := t.Observe(ctx)
	if err != nil {
		return rolloutview.PlanReport{}, classify(err)
	}
	return setops.PlanReport(obs, o.now())
}
