package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// createClaim creates a claim and records upstream's claim event for the
// attempt. AlreadyExists is success: the claim is there, usually ours and
// not yet in the cache.
func (c *apiPodControl) createClaim(ctx context.Context, set *appsv1.StatefulSet, a planner.Action) error {
	_, err := c.client.CoreV1().PersistentVolumeClaims(a.Claim.Namespace).Create(ctx, a.Claim, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	c.claimEvent(set, a, err)
	if err != nil {
		return fmt.Errorf("failed to create PVC %s: %w", a.Claim.Name, err)
	}
	return nil
}

// nameTaken handles a pod create that found the name in use. The pod is
// usually the set's own, not yet in the cache, and all is well. If it is
// someone else's — controlled by another object, or an orphan the set
// cannot adopt — the set cannot run that ordinal: the error says so (the
// unit's FailedCreate event carries it) and fails the sync, so it is
// retried with the queue's backoff (no hot loop) and at once when that pod
// is deleted.
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
	return fmt.Errorf("the name is taken by %s; ordinal %s waits until that pod is gone", holder, strings.TrimPrefix(name, set.Name+"-"))
}

func (c *apiPodControl) createPod(ctx context.Context, set *appsv1.StatefulSet, setKey string, a planner.Action) error {
	if err := c.writeLive(ctx, set, a.Pod, a.Config); err != nil {
		return err
	}
	pod := doorOf(set).podToCreate(a.Pod, c.responder)
	created, err := c.client.CoreV1().Pods(a.Pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return c.nameTaken(ctx, set, a.Pod.Name)
	case err != nil:
		return err
	}
	c.exp.created(setKey, created)
	return nil
}

// deletePod deletes exactly the pod the planner saw: the UID precondition
// keeps a stale decision from deleting a replacement of the same name.
// NotFound and a UID conflict both mean that pod is already gone, which
// upstream also reports as a successful delete.
func (c *apiPodControl) deletePod(ctx context.Context, setKey string, a planner.Action) error {
	if a.Evict {
		return c.evictPod(ctx, setKey, a)
	}
	err := c.client.CoreV1().Pods(a.Pod.Namespace).Delete(ctx, a.Pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &a.Pod.UID}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return err
	}
	c.exp.deleted(setKey, a.Pod.Name, a.Pod.UID)
	return nil
}

// updatePod repairs identity labels with a merge patch guarded by the
// observed resourceVersion. A patch, never a full update: the cache holds
// trimmed pods, and a pod's volumes cannot change anyway. A conflict means
// the pod changed and the next sync sees it; NotFound fails the unit, as
// it fails upstream's update (for a pod named with leading zeros, whose
// repair is written to the canonical name, it always does).
func (c *apiPodControl) updatePod(ctx context.Context, a planner.Action) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": a.Pod.Labels, "resourceVersion": a.Pod.ResourceVersion}})
	if err != nil {
		return fmt.Errorf("encoding patch for pod %s: %w", a.Pod.Name, err)
	}
	_, err = c.client.CoreV1().Pods(a.Pod.Namespace).Patch(ctx, a.Pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// updateClaim writes the claim's owner references (the retention policy)
// with a merge patch guarded by the observed resourceVersion.
func (c *apiPodControl) updateClaim(ctx context.Context, a planner.Action) error {
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
		return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", a.Claim.Name, err)
	}
	return nil
}

func joinErrs(errs []error) error { return errors.Join(errs...) }

// claimEvent records upstream's event for a claim create attempt.
func (c *apiPodControl) claimEvent(set *appsv1.StatefulSet, a planner.Action, err error) {
	pod := planner.PodName(set.Name, a.Ordinal)
	if err == nil {
		c.recorder.Eventf(set, corev1.EventTypeNormal, planner.EventSuccessfulCreate, "Create Claim %s Pod %s in StatefulSet %s success", a.Claim.Name, pod, set.Name)
		return
	}
	c.recorder.Eventf(set, corev1.EventTypeWarning, planner.EventFailedCreate, "Create Claim %s for Pod %s in StatefulSet %s failed error: %s", a.Claim.Name, pod, set.Name, err)
}

// podEvent records upstream's event about the action's pod: reason is a
// Successful<Verb> (err nil) or Failed<Verb> reason, and the message is
// "<Verb> Pod <pod> in StatefulSet <set> successful" or "… failed error:
// <err>", or the action's EventMessage on success when it has one. An
// empty reason records nothing.
func (c *apiPodControl) podEvent(set *appsv1.StatefulSet, a planner.Action, reason string, err error) {
	if reason == "" {
		return
	}
	pod := planner.PodName(set.Name, a.Ordinal)
	if a.Pod != nil {
		pod = a.Pod.Name
	}
	if err == nil && a.EventMessage != "" {
		kind := corev1.EventTypeNormal
		if a.Kind == planner.ForceDeletePod || a.Kind == planner.DeleteClaim {
			// The node-failure policy gave something up: a pod that may
			// still run, or a claim's data.
			kind = corev1.EventTypeWarning
		}
		c.recorder.Eventf(set, kind, reason, "%s", a.EventMessage)
		return
	}
	if err == nil {
		verb := strings.TrimPrefix(reason, "Successful")
		c.recorder.Eventf(set, corev1.EventTypeNormal, reason, "%s Pod %s in StatefulSet %s successful", verb, pod, set.Name)
		return
	}
	verb := strings.TrimPrefix(reason, "Failed")
	c.recorder.Eventf(set, corev1.EventTypeWarning, reason, "%s Pod %s in StatefulSet %s failed error: %s", verb, pod, set.Name, err)
}

// forceDeletePod deletes the pod with grace period 0
// (nodeFailurePolicy.replaceAfterSeconds): the API server removes it at
// once, without waiting for its lost node to confirm. It reads the node
// live first (guard), and deletes only the pod the plan saw, unchanged:
// its UID and resourceVersion are preconditions, so a pod its returning
// kubelet rewrote is left alone (a conflict, which the pod's own update
// event syncs the set again for).
func (c *apiPodControl) forceDeletePod(ctx context.Context, setKey string, a planner.Action) error {
	if err := c.guard(ctx, a); err != nil {
		return err
	}
	err := c.client.CoreV1().Pods(a.Pod.Namespace).Delete(ctx, a.Pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64), Preconditions: &metav1.Preconditions{UID: &a.Pod.UID, ResourceVersion: &a.Pod.ResourceVersion}})
	switch {
	case apierrors.IsConflict(err):
		return nil
	case err != nil && !apierrors.IsNotFound(err):
		return err
	}
	c.exp.deleted(setKey, a.Pod.Name, a.Pod.UID)
	return nil
}

// deleteClaim deletes the claim (nodeFailurePolicy.volumes: Recreate)
// once a live list of its host's nodes still shows the host lost (guard),
// with its UID and resourceVersion as preconditions: a claim replaced or
// changed meanwhile is left alone. A Forbidden answer is remembered: the
// namespace has not opted in.
func (c *apiPodControl) deleteClaim(ctx context.Context, a planner.Action) error {
	if err := c.guard(ctx, a); err != nil {
		return err
	}
	err := c.client.CoreV1().PersistentVolumeClaims(a.Claim.Namespace).Delete(ctx, a.Claim.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &a.Claim.UID, ResourceVersion: &a.Claim.ResourceVersion}})
	switch {
	case apierrors.IsForbidden(err):
		c.nodes.access.denied(a.Claim.Namespace)
		return err
	case err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
		return err
	}
	return nil
}
