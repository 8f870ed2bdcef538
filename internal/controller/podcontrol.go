package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// maxBatch caps concurrent requests in a burst step, as upstream does.
const maxBatch = 500

// PodControl applies the planner's actions through the API.
type PodControl interface {
	// Apply runs the steps in order and stops after the first step with a
	// real error, which it returns.
	Apply(ctx context.Context, set *appsv1.StatefulSet, setKey string, steps []planner.Step) error
}

type apiPodControl struct {
	client   kubernetes.Interface
	recorder record.EventRecorder
	exp      *expectations
}

var _ PodControl = (*apiPodControl)(nil)

func (c *apiPodControl) Apply(ctx context.Context, set *appsv1.StatefulSet, setKey string, steps []planner.Step) error {
	for _, step := range steps {
		run := c.sequential
		if step.Burst {
			run = c.burst
		}
		if err := run(ctx, set, setKey, step.Actions); err != nil {
			return fmt.Errorf("%s: %w", step.Name, err)
		}
	}
	return nil
}

func (c *apiPodControl) sequential(ctx context.Context, set *appsv1.StatefulSet, setKey string, actions []planner.Action) error {
	for _, a := range actions {
		if err := c.do(ctx, set, setKey, a); err != nil {
			return err
		}
	}
	return nil
}

// burst runs actions in slow-start batches of 1, 2, 4, … up to maxBatch; a
// batch with an error ends the step after the whole batch has run, so one
// failing pod never stops its siblings already in flight.
func (c *apiPodControl) burst(ctx context.Context, set *appsv1.StatefulSet, setKey string, actions []planner.Action) error {
	for start, size := 0, 1; start < len(actions); start, size = start+size, min(2*size, maxBatch) {
		end := min(start+size, len(actions))
		errs := make([]error, end-start)
		var wg sync.WaitGroup
		for i := start; i < end; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs[i-start] = c.do(ctx, set, setKey, actions[i])
			}(i)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	return nil
}

func (c *apiPodControl) do(ctx context.Context, set *appsv1.StatefulSet, setKey string, a planner.Action) error {
	klog.FromContext(ctx).V(4).Info("Applying action", "statefulset", setKey, "kind", a.Kind, "ordinal", a.Ordinal, "reason", a.Reason)
	switch a.Kind {
	case planner.CreateClaim:
		return c.createClaim(ctx, set, a)
	case planner.CreatePod:
		return c.createPod(ctx, set, setKey, a)
	case planner.DeletePod:
		return c.deletePod(ctx, set, setKey, a)
	case planner.UpdatePod:
		return c.updatePod(ctx, set, a)
	case planner.UpdateClaim:
		return c.updateClaim(ctx, set, a)
	default:
		return fmt.Errorf("unknown action %q", a.Kind)
	}
}

func (c *apiPodControl) createClaim(ctx context.Context, set *appsv1.StatefulSet, a planner.Action) error {
	_, err := c.client.CoreV1().PersistentVolumeClaims(a.Claim.Namespace).Create(ctx, a.Claim, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil
	case err != nil:
		c.recorder.Eventf(set, corev1.EventTypeWarning, "FailedCreate", "create Claim %s for Pod %s in StatefulSet %s failed error: %s",
			a.Claim.Name, planner.PodName(set.Name, a.Ordinal), set.Name, err)
		return fmt.Errorf("creating claim %s: %w", a.Claim.Name, err)
	}
	c.event(set, a, "create Claim %s Pod %s in StatefulSet %s success", a.Claim.Name, planner.PodName(set.Name, a.Ordinal), set.Name)
	return nil
}

// nameTaken handles a pod create that found the name in use. The pod is
// usually the set's own, not yet in the cache, and all is well. If it is
// someone else's — controlled by another object, or an orphan the set
// cannot adopt — the set cannot run that ordinal: say so in a Warning
// event and fail the sync, so it is retried with the queue's backoff (no
// hot loop) and at once when that pod is deleted.
func (c *apiPodControl) nameTaken(ctx context.Context, set *appsv1.StatefulSet, name string) error {
	pod, err := c.client.CoreV1().Pods(set.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("pod %s exists but cannot be read: %w", name, err)
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref != nil && ref.UID == set.UID {
		return nil
	}
	holder := "an orphan pod the set cannot adopt (its labels do not match the selector, or it is terminating)"
	if ref != nil {
		holder = fmt.Sprintf("a pod controlled by %s %s", ref.Kind, ref.Name)
	}
	c.recorder.Eventf(set, corev1.EventTypeWarning, "FailedCreate",
		"create Pod %s in StatefulSet %s failed: the name is taken by %s; ordinal %s waits until that pod is gone",
		name, set.Name, holder, strings.TrimPrefix(name, set.Name+"-"))
	return fmt.Errorf("pod name %s is taken by %s", name, holder)
}

func (c *apiPodControl) createPod(ctx context.Context, set *appsv1.StatefulSet, setKey string, a planner.Action) error {
	created, err := c.client.CoreV1().Pods(a.Pod.Namespace).Create(ctx, a.Pod, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return c.nameTaken(ctx, set, a.Pod.Name)
	case err != nil:
		c.recorder.Eventf(set, corev1.EventTypeWarning, "FailedCreate", "create Pod %s in StatefulSet %s failed error: %s", a.Pod.Name, set.Name, err)
		return fmt.Errorf("creating pod %s: %w", a.Pod.Name, err)
	}
	c.exp.created(setKey, created)
	c.event(set, a, "create Pod %s in StatefulSet %s successful", a.Pod.Name, set.Name)
	return nil
}

// deletePod deletes exactly the pod the planner saw: the UID precondition
// keeps a stale decision from deleting a replacement of the same name.
// NotFound and a UID conflict both mean that pod is already gone.
func (c *apiPodControl) deletePod(ctx context.Context, set *appsv1.StatefulSet, setKey string, a planner.Action) error {
	err := c.client.CoreV1().Pods(a.Pod.Namespace).Delete(ctx, a.Pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &a.Pod.UID}})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		c.exp.deleted(setKey, a.Pod.Name, a.Pod.UID)
		return nil
	case err != nil:
		c.recorder.Eventf(set, corev1.EventTypeWarning, "FailedDelete", "delete Pod %s in StatefulSet %s failed error: %s", a.Pod.Name, set.Name, err)
		return fmt.Errorf("deleting pod %s: %w", a.Pod.Name, err)
	}
	c.exp.deleted(setKey, a.Pod.Name, a.Pod.UID)
	c.event(set, a, "delete Pod %s in StatefulSet %s successful", a.Pod.Name, set.Name)
	return nil
}

// updatePod repairs identity labels with a merge patch guarded by the
// observed resourceVersion. A patch, never a full update: the cache holds
// trimmed pods, and a pod's volumes cannot change anyway.
func (c *apiPodControl) updatePod(ctx context.Context, set *appsv1.StatefulSet, a planner.Action) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": a.Pod.Labels, "resourceVersion": a.Pod.ResourceVersion}})
	if err != nil {
		return fmt.Errorf("encoding patch for pod %s: %w", a.Pod.Name, err)
	}
	_, err = c.client.CoreV1().Pods(a.Pod.Namespace).Patch(ctx, a.Pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil // gone or changed: the next sync sees the new state
	case err != nil:
		c.recorder.Eventf(set, corev1.EventTypeWarning, "FailedUpdate", "update Pod %s in StatefulSet %s failed error: %s", a.Pod.Name, set.Name, err)
		return fmt.Errorf("updating pod %s: %w", a.Pod.Name, err)
	}
	c.event(set, a, "update Pod %s in StatefulSet %s successful", a.Pod.Name, set.Name)
	return nil
}

// updateClaim writes the claim's owner references (the retention policy)
// with a merge patch guarded by the observed resourceVersion.
func (c *apiPodControl) updateClaim(ctx context.Context, set *appsv1.StatefulSet, a planner.Action) error {
	refs := a.Claim.OwnerReferences
	if refs == nil {
		refs = []metav1.OwnerReference{}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": refs, "resourceVersion": a.Claim.ResourceVersion}})
	if err != nil {
		return fmt.Errorf("encoding patch for claim %s: %w", a.Claim.Name, err)
	}
	_, err = c.client.CoreV1().PersistentVolumeClaims(a.Claim.Namespace).Patch(ctx, a.Claim.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil
	case err != nil:
		c.recorder.Eventf(set, corev1.EventTypeWarning, "FailedUpdate", "update Claim %s in StatefulSet %s failed error: %s", a.Claim.Name, set.Name, err)
		return fmt.Errorf("updating claim %s: %w", a.Claim.Name, err)
	}
	c.event(set, a, "update Claim %s in StatefulSet %s successful", a.Claim.Name, set.Name)
	return nil
}

func (c *apiPodControl) event(set *appsv1.StatefulSet, a planner.Action, format string, args ...any) {
	if a.EventReason != "" {
		c.recorder.Eventf(set, corev1.EventTypeNormal, a.EventReason, format, args...)
	}
}

func joinErrs(errs []error) error { return errors.Join(errs...) }
