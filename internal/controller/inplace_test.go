package controller

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// guardPatches makes the fake answer a pod patch whose body names a
// metadata.resourceVersion other than the stored pod's with a conflict,
// as the API server does.
func (h *unitHarness) guardPatches() {
	h.client.PrependReactor("patch", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.PatchAction)
		var body struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(p.GetPatch(), &body); err != nil || body.Metadata.ResourceVersion == "" {
			return false, nil, nil
		}
		obj, err := h.client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), p.GetNamespace(), p.GetName())
		if err != nil {
			return false, nil, nil
		}
		if stored := obj.(*corev1.Pod).ResourceVersion; stored != body.Metadata.ResourceVersion {
			return true, nil, apierrors.NewConflict(corev1.Resource("pods"), p.GetName(), nil)
		}
		return false, nil, nil
	})
}

// A hook start planned from an older pod than the API server holds (here:
// the actor answered Done since) conflicts, and the unit ends without an
// error or an event, the answer kept; planned from the pod as stored, it
// labels the pod Pending and records its event.
func TestAHookStartFromAnOlderPodKeepsTheAnswer(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	stored := testgen.Pod(set, 2, testgen.PodLabel(v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone))
	stored.ResourceVersion = "5"
	read := stored.DeepCopy()
	delete(read.Labels, v1alpha1.PreUpdateHookLabel)
	read.ResourceVersion = "4"
	start := func(pod *corev1.Pod) planner.Plan {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uid": pod.UID, "resourceVersion": pod.ResourceVersion,
			"labels": map[string]any{v1alpha1.PreUpdateHookLabel: v1alpha1.HookPending}}})
		return planner.Plan{Steps: []planner.Step{{Name: "rolling update", Actions: []planner.Action{{Kind: planner.StartHook, Ordinal: 2, Pod: pod,
			Patch: patch, EventReason: planner.EventHookStarted, EventMessage: "started", FailEvent: planner.EventFailedUpdate}}}}}
	}
	label := func(h *unitHarness) string {
		obj, err := h.client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), stored.Namespace, stored.Name)
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*corev1.Pod).Labels[v1alpha1.PreUpdateHookLabel]
	}

	h := newUnitHarness(t, stored.DeepCopy())
	h.guardPatches()
	if err := h.apply(set, start(read)); err != nil {
		t.Errorf("a start from an older pod failed the unit: %v", err)
	}
	if got, ev := label(h), h.events(); got != v1alpha1.HookDone || len(ev) != 0 {
		t.Errorf("after a start from an older pod the hook is %q with events %v; want the answer %s kept, no event", got, ev, v1alpha1.HookDone)
	}

	fresh := stored.DeepCopy()
	delete(fresh.Labels, v1alpha1.PreUpdateHookLabel)
	h = newUnitHarness(t, fresh.DeepCopy())
	h.guardPatches()
	if err := h.apply(set, start(fresh)); err != nil {
		t.Fatal(err)
	}
	if got, ev := label(h), h.events(); got != v1alpha1.HookPending || len(ev) != 1 {
		t.Errorf("after a start from the stored pod the hook is %q with events %v; want %s and its event", got, ev, v1alpha1.HookPending)
	}
}
