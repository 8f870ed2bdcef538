package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Under configRevisions apply Reload each pod reads its own live
// ConfigMaps (configrev.LiveVolumes). The executor writes them: before
// it creates the pod, with its revision's data, and for a reload
// (planner.ReloadPod), with the new revision's, before it records the
// reload on the pod. That pod update is what makes the kubelet sync the
// pod, and its sync refreshes the files of configMap volumes. The user's
// own ConfigMaps are never written, and neither is an object of a live
// ConfigMap's name that the controller did not make (IsLiveFor).

// writeLive makes each live ConfigMap of pod hold the data of its copy.
func (c *apiPodControl) writeLive(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, live []configrev.Live) error {
	for _, l := range live {
		if err := c.writeOneLive(ctx, set, pod, l); err != nil {
			return fmt.Errorf("writing live ConfigMap %s of %s: %w", l.Name, pod.Name, err)
		}
	}
	return nil
}

func (c *apiPodControl) writeOneLive(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod, l configrev.Live) error {
	cms := c.client.CoreV1().ConfigMaps(pod.Namespace)
	src, err := cms.Get(ctx, l.Copy, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("reading copy %s: %w", l.Copy, err)
	}
	if !configrev.IsCopyFor(src.Labels, set.Name) {
		return fmt.Errorf("ConfigMap %s is not a copy the controller made for %s", l.Copy, set.Name)
	}
	owner := metav1.OwnerReference{APIVersion: v1alpha1.Kind.GroupVersion().String(), Kind: v1alpha1.Kind.Kind, Name: set.Name, UID: set.UID}
	want := configrev.LiveConfigMap(l, pod, set.Name, owner, src)
	// A pod recreated under its name finds its live ConfigMap there
	// already (it outlives the pod, owned by the set): where the cache
	// shows it, it is read and patched, not created and refused first.
	if !c.liveCached(pod.Namespace, l.Name) {
		_, err = cms.Create(ctx, want, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	cur, err := cms.Get(ctx, l.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// The cache was behind a deletion.
		_, err = cms.Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if !configrev.IsLiveFor(cur.Labels, set.Name, pod.Name) {
		return fmt.Errorf("ConfigMap %s exists and is not a live ConfigMap the controller made for %s: rename it", l.Name, pod.Name)
	}
	if cur.Annotations[v1alpha1.ConfigCopyAnnotation] == l.Copy && maps.Equal(cur.Data, want.Data) && sameBinary(cur.BinaryData, want.BinaryData) {
		return nil
	}
	patch, err := livePatch(cur, want)
	if err != nil {
		return err
	}
	_, err = cms.Patch(ctx, l.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// liveCached reports whether the ConfigMap cache shows a ConfigMap named
// name in ns; false without the cache.
func (c *apiPodControl) liveCached(ns, name string) bool {
	if c.configMaps == nil {
		return false
	}
	_, err := c.configMaps.ConfigMaps(ns).Get(name)
	return err == nil
}

func sameBinary(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// livePatch is the merge patch from cur's data to want's: every key set,
// every key want lacks removed, the copy it holds named, and cur's
// resourceVersion as a precondition (a conflict fails the unit, and the
// next sync writes it again).
func livePatch(cur, want *corev1.ConfigMap) ([]byte, error) {
	data := map[string]any{}
	for k := range cur.Data {
		data[k] = nil
	}
	for k, v := range want.Data {
		data[k] = v
	}
	binary := map[string]any{}
	for k := range cur.BinaryData {
		binary[k] = nil
	}
	for k, v := range want.BinaryData {
		binary[k] = v
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": cur.ResourceVersion,
			"annotations": map[string]any{v1alpha1.ConfigCopyAnnotation: want.Annotations[v1alpha1.ConfigCopyAnnotation]}},
		"data": data, "binaryData": binary,
	})
}

// reloadPod writes the pod's live ConfigMaps, then patches its reload
// record: the record says only what was written.
func (c *apiPodControl) reloadPod(ctx context.Context, set *appsv1.StatefulSet, a planner.Action) error {
	if err := c.writeLive(ctx, set, a.Pod, a.Config); err != nil {
		return err
	}
	return c.patchInPlace(ctx, a)
}

// withKeyHashes adds to a reload hook's request each key's hash, from
// the copies' metadata in the cache, so that the receiver can check its
// files; a copy the cache does not show yet goes without.
func withKeyHashes(lister corelisters.ConfigMapLister, ns string, req *v1alpha1.HookRequest) {
	if lister == nil {
		return
	}
	for i := range req.Config {
		cm, err := lister.ConfigMaps(ns).Get(req.Config[i].Copy)
		if err != nil {
			continue
		}
		if keys, err := configrev.KeyHashesOf(cm.Annotations); err == nil {
			req.Config[i].Keys = keys
		}
	}
}
