package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

var (
	_ PodDeleter = (*ExtendedStatefulSets)(nil)
	_ Reserver   = (*ExtendedStatefulSets)(nil)
)

// maxReservedCells bounds the reserved cells of one set, so a range such
// as "10-2000000000" does not turn into a grid of millions; it matches how
// far above its range the grid looks for pods.
const maxReservedCells = 1000

// DeletePod implements PodDeleter: it labels the set's pod at ordinal with
// v1alpha1.DeleteRequestedLabel, and the controller deletes and creates it
// again within rollingUpdate.maxUnavailable. The pod must be one the set
// controls, so the page cannot label another set's pod through this set.
func (k *ExtendedStatefulSets) DeletePod(ctx context.Context, namespace, set string, ordinal int32) (string, error) {
	name := planner.PodName(set, ordinal)
	pod, err := k.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", errNotFound{fmt.Sprintf("pod %s/%s (ordinal %d of %s has no pod)", namespace, name, ordinal, set)}
	}
	if err != nil {
		return "", fmt.Errorf("reading pod %s/%s: %w", namespace, name, err)
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != v1alpha1.Kind.Kind || ref.APIVersion != v1alpha1.SchemeGroupVersion.String() || ref.Name != set {
		return "", badRequest{fmt.Sprintf("pod %s/%s is not controlled by %s/%s", namespace, name, k.Name(), set)}
	}
	if pod.DeletionTimestamp != nil {
		return "", badRequest{fmt.Sprintf("pod %s/%s is already terminating", namespace, name)}
	}
	_, err = k.client.CoreV1().Pods(namespace).Patch(ctx, name, types.MergePatchType, deleteRequestPatch(pod.UID), metav1.PatchOptions{})
	switch {
	case apierrors.IsInvalid(err), apierrors.IsConflict(err), apierrors.IsNotFound(err):
		// The UID in the patch no longer matches: a new pod took the name.
		return "", fmt.Errorf("pod %s/%s was replaced while it was being labelled, so it was left alone: %w", namespace, name, err)
	case err != nil:
		return "", fmt.Errorf("labelling pod %s/%s with %s=true: %w", namespace, name, v1alpha1.DeleteRequestedLabel, err)
	}
	return fmt.Sprintf("pod/%s labelled %s=true: the controller replaces it within maxUnavailable", name, v1alpha1.DeleteRequestedLabel), nil
}

// deleteRequestPatch sets the label on the pod with uid: the UID in the
// patch makes the API server refuse it should the pod have been replaced
// since it was read.
func deleteRequestPatch(uid types.UID) []byte {
	patch := map[string]any{"metadata": map[string]any{
		"uid":    uid,
		"labels": map[string]string{v1alpha1.DeleteRequestedLabel: "true"},
	}}
	data, _ := json.Marshal(patch) // a map of strings always marshals
	return data
}

// Reserved implements Reserver: the ordinals spec.reserveOrdinals takes
// out from the start ordinal up to the set's highest pod ordinal (those
// above it would have no pod anyway), at most maxReservedCells of them.
// Entries that do not parse are skipped, as the controller skips them.
func (*ExtendedStatefulSets) Reserved(obj any) []int32 {
	set := extendedOf(obj)
	if set == nil || len(set.Spec.ReserveOrdinals) == 0 {
		return nil
	}
	view := osts.View(set)
	start := planner.StartOrdinal(view)
	var out []int32
	// The reserved ordinals below the highest are the gaps before and
	// between the runs of the set's ordinals.
	next := int64(start)
	for _, run := range planner.NewLayout(start, planner.Replicas(view), osts.Reserved(set)).Runs() {
		for ord := next; ord < int64(run.Low) && len(out) < maxReservedCells; ord++ {
			out = append(out, int32(ord))
		}
		next = int64(run.High) + 1
	}
	return slices.Clip(out)
}
