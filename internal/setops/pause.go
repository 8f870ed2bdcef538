package setops

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// noPartition is the saved value for a set that had no partition.
const noPartition = "none"

// Pause holds a RollingUpdate set's rollout where it is and returns the
// sentence to show the user. An extended set is paused by its own field
// (see extendedDoor.pause).
func (t *Target) Pause(ctx context.Context) (string, error) { return t.door().pause(ctx, t) }

// pause raises an apps/v1 set's partition to one above the highest
// ordinal still at an old revision and saves the partition to restore in
// v1alpha1.PausedAnnotation. Pausing twice keeps the first saved value.
func (appsV1Door) pause(ctx context.Context, t *Target) (string, error) {
	if t.Set.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		return "", fmt.Errorf("cannot pause %s: its update strategy is %s, where pods change only when you delete them; pause works on RollingUpdate sets",
			t.Ref(), t.Set.Spec.UpdateStrategy.Type)
	}
	freeze, err := t.freezePoint(ctx)
	if err != nil {
		return "", err
	}
	saved, paused := t.Set.Annotations[v1alpha1.PausedAnnotation]
	if !paused {
		saved = savedPartition(t.Set)
	}
	if !paused || freeze != planner.Partition(t.Set) {
		if err := t.patchPause(ctx, &freeze, &saved); err != nil {
			return "", err
		}
	}
	verb := "paused"
	if paused {
		verb = "already paused"
	}
	return fmt.Sprintf("%s %s at partition %d (%s); resume restores partition %s", t.Ref(), verb, freeze, held(t.Set, freeze), saved), nil
}

// freezePoint computes the partition from the live pods and the update
// revision the controller resolves for the live template.
func (t *Target) freezePoint(ctx context.Context) (int32, error) {
	revs, err := t.Revisions(ctx)
	if err != nil {
		return 0, err
	}
	res, err := revision.ResolveWith(t.Set, revs, RevisionOptions(t.Extended))
	if err != nil {
		return 0, err
	}
	pods, err := t.Pods(ctx)
	if err != nil {
		return 0, err
	}
	return freezePartition(t.Set, pods, res.Update.Name), nil
}

// freezePartition is the partition that holds a rollout where it is: pods
// at or above the partition (counted from spec.ordinals.start) get the
// update, so it is one above the highest ordinal still at an old revision.
// Rules, in order:
//   - a pod that is missing or terminating is already on its way to the
//     update revision; ordinals above every old pod keep that course;
//   - when no pod is at an old revision, the partition is the lowest such
//     in-flight ordinal, else replicas (nothing more changes, including
//     future template edits);
//   - it never goes below the set's own partition: pause must not release
//     pods the user was holding.
func freezePartition(set *appsv1.StatefulSet, pods []*corev1.Pod, update string) int32 {
	start, n := planner.StartOrdinal(set), planner.Replicas(set)
	byName := make(map[string]*corev1.Pod, len(pods))
	for _, p := range pods {
		byName[p.Name] = p
	}
	highestOld, lowestInFlight := int32(-1), n
	for i := int32(0); i < n; i++ {
		pod := byName[planner.PodName(set.Name, start+i)]
		switch {
		case pod == nil || pod.DeletionTimestamp != nil:
			lowestInFlight = min(lowestInFlight, i)
		case pod.Labels[appsv1.StatefulSetRevisionLabel] != update:
			highestOld = i
		}
	}
	p := n
	if highestOld >= 0 {
		p = highestOld + 1
	} else if lowestInFlight < n {
		p = lowestInFlight
	}
	if own := planner.Partition(set); own > p {
		p = min(own, n)
	}
	return p
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
func (t *Target) patchPause(ctx context.Context, partition *int32, saved *string) error {
	body := map[string]any{
		"metadata": map[string]any{
			"resourceVersion": t.Set.ResourceVersion,
			"annotations":     map[string]any{v1alpha1.PausedAnnotation: saved},
		},
		"spec": map[string]any{"updateStrategy": map[string]any{"rollingUpdate": map[string]any{"partition": partition}}},
	}
	return t.mergePatch(ctx, body)
}

// mergePatch sends body to the set as a JSON merge patch, which both kinds
// take (a custom resource takes no strategic merge patch).
func (t *Target) mergePatch(ctx context.Context, body map[string]any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	if err := t.door().patch(ctx, t, types.MergePatchType, data); err != nil {
		return fmt.Errorf("updating %s: %w", t.Ref(), err)
	}
	return nil
}

// Resume lets a paused rollout go on and returns the sentence to show the
// user; a set that is not paused is left alone.
func (t *Target) Resume(ctx context.Context) (string, error) { return t.door().resume(ctx, t) }

// resume restores the partition an apps/v1 set's pause saved and removes
// the annotation.
func (appsV1Door) resume(ctx context.Context, t *Target) (string, error) {
	saved, paused := t.Set.Annotations[v1alpha1.PausedAnnotation]
	if !paused {
		return t.Ref() + " is not paused; nothing to resume", nil
	}
	restore, err := t.savedRestore(saved)
	if err != nil {
		return "", err
	}
	if err := t.patchPause(ctx, restore, nil); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s resumed; partition restored to %s", t.Ref(), saved), nil
}

// savedRestore reads the partition Pause saved: nil for none.
func (t *Target) savedRestore(saved string) (*int32, error) {
	if saved == noPartition {
		return nil, nil
	}
	n, err := strconv.ParseInt(saved, 10, 32)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%s has an invalid %s annotation %q; set spec.updateStrategy.rollingUpdate.partition yourself and remove the annotation",
			t.Ref(), v1alpha1.PausedAnnotation, saved)
	}
	p := int32(n)
	return &p, nil
}
