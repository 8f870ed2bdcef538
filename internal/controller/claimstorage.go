package controller

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// patchClaimStorage writes what an UpdateClaimStorage action carries (the
// storage request, volumeAttributesClassName, labels and annotations to
// add or change) with a merge patch guarded by the observed
// resourceVersion, so other labels and annotations stay. A conflict means
// the claim changed and the next sync looks again; NotFound means it is
// gone and the replica pass recreates it.
func (c *apiPodControl) patchClaimStorage(ctx context.Context, a planner.Action) error {
	patch, err := claimStoragePatch(a.Claim)
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().PersistentVolumeClaims(a.Claim.Namespace).Patch(ctx, a.Claim.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil
	case err != nil:
		return fmt.Errorf("updating claim %s to its template: %w", a.Claim.Name, err)
	}
	return nil
}

// claimStoragePatch is the merge patch of the fields set in claim.
func claimStoragePatch(claim *corev1.PersistentVolumeClaim) ([]byte, error) {
	meta := map[string]any{"resourceVersion": claim.ResourceVersion}
	if len(claim.Labels) > 0 {
		meta["labels"] = claim.Labels
	}
	if len(claim.Annotations) > 0 {
		meta["annotations"] = claim.Annotations
	}
	spec := map[string]any{}
	if q, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		spec["resources"] = map[string]any{"requests": map[string]any{string(corev1.ResourceStorage): q.String()}}
	}
	if v := claim.Spec.VolumeAttributesClassName; v != nil {
		spec["volumeAttributesClassName"] = *v
	}
	body := map[string]any{"metadata": meta}
	if len(spec) > 0 {
		body["spec"] = spec
	}
	patch, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding patch for claim %s: %w", claim.Name, err)
	}
	return patch, nil
}
