package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// RestartedAtAnnotation is kubectl's restart marker on the pod template.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

func newUndo(o *options) *cobra.Command {
	var to int64
	cmd := &cobra.Command{
		Use:   "undo SET",
		Short: "Roll back to the previous revision, or to --to-revision N, as kubectl does",
		Long: `Roll back the pod template, exactly as kubectl rollout undo does for
StatefulSets: the revision's stored data is sent as a strategic merge patch.
The controller then renumbers that revision; no revision is created.

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
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	revs, err := t.revisions(ctx)
	if err != nil {
		return err
	}
	target, err := undoTarget(revs, to)
	if err != nil {
		return err
	}
	current, err := revision.Patch(t.set)
	if err != nil {
		return err
	}
	if bytes.Equal(current, target.Data.Raw) {
		// kubectl prints the requested number, 0 included.
		fmt.Fprintf(o.out, "%s skipped rollback (current template already matches revision %d)\n", t.ref(), to)
		return nil
	}
	_, err = t.client.AppsV1().StatefulSets(t.set.Namespace).Patch(ctx, t.set.Name, types.StrategicMergePatchType, target.Data.Raw, metav1.PatchOptions{})
	if err != nil {
		return classify(fmt.Errorf("rolling back %s: %w", t.ref(), err))
	}
	fmt.Fprintf(o.out, "%s rolled back\n", t.ref())
	return nil
}

// undoTarget is kubectl's findHistory: revision to, or the second-highest
// when to is 0. revs are sorted oldest first.
func undoTarget(revs []*appsv1.ControllerRevision, to int64) (*appsv1.ControllerRevision, error) {
	if to == 0 {
		if len(revs) <= 1 {
			return nil, exit.With(NotFound, errors.New("no last revision to roll back to"))
		}
		return revs[len(revs)-2], nil
	}
	return findRevision(revs, to)
}

func newRestart(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "restart SET",
		Short: "Replace every pod, one by one, by stamping the template (kubectl's restartedAt)",
		Long: `Set the pod template annotation kubectl.kubernetes.io/restartedAt to now, as
kubectl rollout restart does. The new template is a new revision, so the
rolling update replaces every pod under the set's strategy.`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.restart(cmd.Context(), args[0])
		},
	}
}

func (o *options) restart(ctx context.Context, arg string) error {
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, RestartedAtAnnotation, o.now().Format(time.RFC3339))
	_, err = t.client.AppsV1().StatefulSets(t.set.Namespace).Patch(ctx, t.set.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return classify(fmt.Errorf("restarting %s: %w", t.ref(), err))
	}
	fmt.Fprintf(o.out, "%s restarted\n", t.ref())
	return nil
}
