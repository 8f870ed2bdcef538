package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// patchInPlace sends an in-place action's strategic merge patch: to the
// pod (images, labels, annotations; the patch names the pod's UID, so it
// fails on a pod of the same name created since), to its resize
// subresource, or to its status (the readiness gate condition, merged by
// type with the kubelet's conditions). NotFound means the pod is gone and
// the replica pass recreates it. A conflict can only answer a patch that
// names the resourceVersion its plan read (a hook start does): it was
// planned from an older pod than the API server holds, podChanged, which
// ends the unit without an event. Any other error fails the unit, and the
// next sync plans again from what the pod then says.
func (c *apiPodControl) patchInPlace(ctx context.Context, a planner.Action) error {
	var sub []string
	switch a.Kind {
	case planner.ResizePod:
		sub = []string{"resize"}
	case planner.PatchPodStatus:
		sub = []string{"status"}
	}
	_, err := c.client.CoreV1().Pods(a.Pod.Namespace).Patch(ctx, a.Pod.Name, types.StrategicMergePatchType, a.Patch, metav1.PatchOptions{}, sub...)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsConflict(err):
		return &podChanged{err}
	case err != nil:
		return fmt.Errorf("patching pod %s (%s): %w", a.Pod.Name, a.Kind, err)
	}
	return nil
}

// podChanged is what an action planned from an older pod than the API
// server holds returns: the unit ends without an event or an error, and
// the pod's own update event syncs the set again.
type podChanged struct{ err error }

func (e *podChanged) Error() string { return e.err.Error() }
func (e *podChanged) Unwrap() error { return e.err }
