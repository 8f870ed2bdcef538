package controller

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func recordTestPods() map[string]*corev1.Pod {
	now := time.Unix(1000, 0)
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("data", "logs"))
	withExtras := testgen.Pod(set, 2, testgen.Ready(now))
	withExtras.Annotations = map[string]string{"a": "b"}
	withExtras.Spec.NodeName = "node-1"
	withExtras.Spec.Volumes = append(withExtras.Spec.Volumes, corev1.Volume{Name: "cfg",
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}})
	withExtras.Status.Conditions = append([]corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}},
		withExtras.Status.Conditions...)
	withExtras.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", RestartCount: 3}}
	return map[string]*corev1.Pod{
		"ready":                      testgen.Pod(set, 0, testgen.Ready(now)),
		"not ready":                  testgen.Pod(set, 1, testgen.NotReady(now)),
		"pending without conditions": testgen.Pod(set, 1, testgen.Pending()),
		"terminating":                testgen.Pod(set, 0, testgen.Ready(now), testgen.Terminating(now)),
		"no volumes, no phase":       testgen.Pod(set, 0, testgen.NoVolumes(), testgen.NoPhase()),
		"extra volumes and statuses": withExtras,
		"failed, foreign-named":      testgen.Pod(set, 0, testgen.Failed(), testgen.Named("web-x")),
	}
}

// The planner must see the same pod through the cache as TrimPod gives.
func TestPodRecordRoundTripsTrimPod(t *testing.T) {
	for name, pod := range recordTestPods() {
		t.Run(name, func(t *testing.T) {
			rec := newPodRecord(pod)
			if diff := cmp.Diff(planner.TrimPod(pod), rec.pod()); diff != "" {
				t.Errorf("record.pod() differs from TrimPod (-want +got):\n%s", diff)
			}
			cp := rec.DeepCopyObject().(*podRecord)
			if diff := cmp.Diff(rec.pod(), cp.pod()); diff != "" {
				t.Errorf("DeepCopyObject differs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodsInListsTheNamespacesMatchingRecords(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	add := func(ns, name, app string) {
		if err := idx.Add(&podRecord{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}}}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", "web-0", "web")
	add("a", "db-0", "db")
	add("b", "web-0", "web")
	got := podsIn(idx, "a", labels.SelectorFromSet(labels.Set{"app": "web"}))
	if len(got) != 1 || got[0].Namespace != "a" || got[0].Name != "web-0" {
		t.Errorf("podsIn(a, app=web) = %v, want only a/web-0", got)
	}
	if r, ok := podByName(idx, "b", "web-0"); !ok || r.Namespace != "b" {
		t.Errorf("podByName(b, web-0) = %v, %v", r, ok)
	}
	if _, ok := podByName(idx, "b", "db-0"); ok {
		t.Error("podByName found b/db-0, which is not cached")
	}
}
