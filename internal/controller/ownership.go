package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// isMemberOf reports whether pod's name is <set>-<ordinal>, split as
// upstream splits it (planner.SplitPodName).
func isMemberOf(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, _, ok := planner.SplitPodName(pod.Name)
	return ok && parent == set.Name
}

// recheck reads a set from the API server, past the cache.
type recheck func(ctx context.Context, set *appsv1.StatefulSet) (metav1.Object, error)

// adopter gates adoption on one uncached read of the set per sync: the set
// must still exist with the same UID and not be being deleted, so a stale
// cache never makes a dying or replaced set grab pods (upstream #42639).
type adopter struct {
	recheck recheck
	set     *appsv1.StatefulSet
	once    sync.Once
	err     error
}

func (a *adopter) canAdopt(ctx context.Context) error {
	a.once.Do(func() {
		fresh, err := a.recheck(ctx, a.set)
		switch {
		case err != nil:
			a.err = fmt.Errorf("rechecking %s before adopting: %w", a.set.Name, err)
		case fresh.GetUID() != a.set.UID:
			a.err = fmt.Errorf("set %s was replaced (UID %s, cached %s); not adopting", a.set.Name, fresh.GetUID(), a.set.UID)
		case fresh.GetDeletionTimestamp() != nil:
			a.err = fmt.Errorf("set %s is being deleted; not adopting", a.set.Name)
		}
	})
	return a.err
}

// apiRecheck is the recheck of apps/v1 sets.
func apiRecheck(client kubernetes.Interface) recheck {
	return func(ctx context.Context, set *appsv1.StatefulSet) (metav1.Object, error) {
		return client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
	}
}

// claimPods sorts candidates into the pods the set owns: owned and matching
// pods are kept, owned pods that stopped matching are released, matching
// orphans are adopted, pods owned by anything else are ignored.
func claimPods(ctx context.Context, client kubernetes.Interface, rc recheck, set *appsv1.StatefulSet, selector labels.Selector, candidates []*corev1.Pod) ([]*corev1.Pod, error) {
	a := &adopter{recheck: rc, set: set}
	owned := make([]*corev1.Pod, 0, len(candidates))
	var errs []error
	for _, pod := range candidates {
		match := selector.Matches(labels.Set(pod.Labels)) && isMemberOf(set, pod)
		ref := metav1.GetControllerOfNoCopy(pod)
		switch {
		case ref != nil && ref.UID == set.UID && match:
			owned = append(owned, pod)
		case ref != nil && ref.UID == set.UID:
			if set.DeletionTimestamp == nil {
				errs = append(errs, releasePod(ctx, client, set, pod))
			}
		case ref != nil, !match, pod.DeletionTimestamp != nil, set.DeletionTimestamp != nil:
		default:
			adopted, err := adoptPod(ctx, client, a, set, pod)
			errs = append(errs, err)
			if adopted != nil {
				owned = append(owned, adopted)
			}
		}
	}
	return owned, joinErrs(errs)
}

func adoptPod(ctx context.Context, client kubernetes.Interface, a *adopter, set *appsv1.StatefulSet, pod *corev1.Pod) (*corev1.Pod, error) {
	if err := a.canAdopt(ctx); err != nil {
		return nil, err
	}
	patch, err := ownerPatch(set, pod.UID, false)
	if err != nil {
		return nil, err
	}
	adopted, err := client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adopting pod %s: %w", pod.Name, err)
	}
	return adopted, nil
}

func releasePod(ctx context.Context, client kubernetes.Interface, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	patch, err := ownerPatch(set, pod.UID, true)
	if err != nil {
		return err
	}
	_, err = client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
		return fmt.Errorf("releasing pod %s: %w", pod.Name, err)
	}
	return nil
}

// claimRevisions adopts matching orphan revisions; revisions are never
// released, as upstream.
func claimRevisions(ctx context.Context, client kubernetes.Interface, rc recheck, set *appsv1.StatefulSet, selector labels.Selector, candidates []*appsv1.ControllerRevision) ([]*appsv1.ControllerRevision, error) {
	a := &adopter{recheck: rc, set: set}
	var owned []*appsv1.ControllerRevision
	var errs []error
	for _, rev := range candidates {
		ref := metav1.GetControllerOfNoCopy(rev)
		switch {
		case ref != nil && ref.UID == set.UID:
			owned = append(owned, rev)
		case ref != nil, !selector.Matches(labels.Set(rev.Labels)), set.DeletionTimestamp != nil:
		default:
			if err := a.canAdopt(ctx); err != nil {
				errs = append(errs, err)
				continue
			}
			patch, err := ownerPatch(set, rev.UID, false)
			if err != nil {
				return nil, err
			}
			adopted, err := client.AppsV1().ControllerRevisions(rev.Namespace).Patch(ctx, rev.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("adopting revision %s: %w", rev.Name, err))
			} else if err == nil {
				owned = append(owned, adopted)
			}
		}
	}
	return owned, joinErrs(errs)
}

// ownerPatch is a strategic-merge patch that adds (or, with release,
// removes) the set's controller reference, with the object's UID as a
// precondition so a recreated object of the same name is never touched.
func ownerPatch(set *appsv1.StatefulSet, uid types.UID, release bool) ([]byte, error) {
	ref := map[string]any{"uid": set.UID}
	if release {
		ref["$patch"] = "delete"
	} else {
		kind := setkind.Of(set).GroupVersionKind()
		ref = map[string]any{"apiVersion": kind.GroupVersion().String(), "kind": kind.Kind, "name": set.Name,
			"uid": set.UID, "controller": true, "blockOwnerDeletion": true}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}, "uid": uid}})
	if err != nil {
		return nil, fmt.Errorf("encoding owner patch: %w", err)
	}
	return patch, nil
}
