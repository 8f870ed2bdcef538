package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/cli/rollout/view"
	"github.com/ordinal-sh/ordinal/internal/revision"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// noPartition is the saved value for a set that had no partition.
const noPartition = "none"

func newPause(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "pause SET",
		Short: "Hold a rolling update where it is, by raising the partition",
		Long: `Hold a RollingUpdate set's rollout where it is: the partition is raised to one
above the highest ordinal still at an old revision, so no further pod is
replaced, and the partition to restore is saved in the set's annotation
` + view.PausedAnnotation + `. Pods already updated stay updated.
Pausing twice keeps the original saved value. The pause lives only in the
object, so it survives restarts of the controller and of this tool.
OnDelete sets are refused: nothing rolls there unless you delete pods.`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.pause(cmd.Context(), args[0])
		},
	}
}

func (o *options) pause(ctx context.Context, arg string) error {
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	if t.set.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		return exit.With(exit.Failure, fmt.Errorf("cannot pause %s: its update strategy is %s, where pods change only when you delete them; pause works on RollingUpdate sets",
			t.ref(), t.set.Spec.UpdateStrategy.Type))
	}
	freeze, err := o.freezePoint(ctx, t)
	if err != nil {
		return err
	}
	saved, paused := t.set.Annotations[view.PausedAnnotation]
	if !paused {
		saved = savedPartition(t.set)
	}
	if !paused || freeze != planner.Partition(t.set) {
		if err := patchPause(ctx, t, &freeze, &saved); err != nil {
			return err
		}
	}
	verb := "paused"
	if paused {
		verb = "already paused"
	}
	fmt.Fprintf(o.out, "%s %s at partition %d (%s); resume restores partition %s\n", t.ref(), verb, freeze, held(t.set, freeze), saved)
	return nil
}

// freezePoint computes the partition from the live pods and the update
// revision the controller resolves for the live template.
func (o *options) freezePoint(ctx context.Context, t *target) (int32, error) {
	revs, err := t.revisions(ctx)
	if err != nil {
		return 0, err
	}
	res, err := revision.Resolve(t.set, revs)
	if err != nil {
		return 0, err
	}
	pods, err := t.pods(ctx)
	if err != nil {
		return 0, err
	}
	return view.FreezePartition(t.set, pods, res.Update.Name), nil
}

// held says in words which ordinals the partition holds back.
func held(set *appsv1.StatefulSet, p int32) string {
	n, start := planner.Replicas(set), planner.StartOrdinal(set)
	switch {
	case p <= 0:
		return "no ordinal held"
	case p >= n:
		return "every ordinal held"
	}
	return fmt.Sprintf("ordinals %d-%d held, %d-%d may update", start, start+p-1, start+p, start+n-1)
}

func savedPartition(set *appsv1.StatefulSet) string {
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return strconv.Itoa(int(*ru.Partition))
	}
	return noPartition
}

// patchPause writes the partition and the saved annotation in one JSON
// merge patch guarded by the resourceVersion just read, so a concurrent
// edit makes it fail (Conflict) instead of being overwritten. A nil
// partition removes the field; a nil saved value removes the annotation.
func patchPause(ctx context.Context, t *target, partition *int32, saved *string) error {
	body := map[string]any{
		"metadata": map[string]any{
			"resourceVersion": t.set.ResourceVersion,
			"annotations":     map[string]any{view.PausedAnnotation: saved},
		},
		"spec": map[string]any{"updateStrategy": map[string]any{"rollingUpdate": map[string]any{"partition": partition}}},
	}
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	_, err = t.client.AppsV1().StatefulSets(t.set.Namespace).Patch(ctx, t.set.Name, types.MergePatchType, data, metav1.PatchOptions{})
	if err != nil {
		return classify(fmt.Errorf("updating %s: %w", t.ref(), err))
	}
	return nil
}

func newResume(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "resume SET",
		Short: "Resume a rollout held by pause: restore the saved partition",
		Long: `Restore the partition saved by pause and remove the annotation. Running it on
a set that is not paused changes nothing.`,
		Args:              oneSet,
		ValidArgsFunction: o.completeSets,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.resume(cmd.Context(), args[0])
		},
	}
}

func (o *options) resume(ctx context.Context, arg string) error {
	t, err := o.load(ctx, arg)
	if err != nil {
		return err
	}
	saved, paused := t.set.Annotations[view.PausedAnnotation]
	if !paused {
		fmt.Fprintf(o.out, "%s is not paused; nothing to resume\n", t.ref())
		return nil
	}
	var restore *int32
	if saved != noPartition {
		n, err := strconv.ParseInt(saved, 10, 32)
		if err != nil || n < 0 {
			return exit.With(exit.Failure, fmt.Errorf("%s has an invalid %s annotation %q; set spec.updateStrategy.rollingUpdate.partition yourself and remove the annotation",
				t.ref(), view.PausedAnnotation, saved))
		}
		p := int32(n)
		restore = &p
	}
	if err := patchPause(ctx, t, restore, nil); err != nil {
		return err
	}
	fmt.Fprintf(o.out, "%s resumed; partition restored to %s\n", t.ref(), saved)
	return nil
}
