package controller

import (
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

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

func TestOrphansAreIndexedByTheSetTheirNameBelongsTo(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{orphanIndex: indexOrphanByParent})
	owned := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u", Controller: ptr.To(true)}}
	for _, r := range []*podRecord{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web-0"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "my-web-12"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web-1", OwnerReferences: owned}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web-x"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web-"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "web-2"}},
	} {
		if err := idx.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	names := func(key string) []string {
		var out []string
		for _, r := range byIndex[*podRecord](idx, orphanIndex, key) {
			out = append(out, r.Namespace+"/"+r.Name)
		}
		sort.Strings(out)
		return out
	}
	for key, want := range map[string][]string{"a/web": {"a/web-0"}, "a/my-web": {"a/my-web-12"}, "b/web": {"b/web-2"}, "a/my": nil} {
		if got := names(key); !cmp.Equal(got, want) {
			t.Errorf("orphans of %s: %v, want %v", key, got, want)
		}
	}
	if r, ok := podByName(idx, "b", "web-2"); !ok || r.Namespace != "b" {
		t.Errorf("podByName(b, web-2) = %v, %v", r, ok)
	}
	if _, ok := podByName(idx, "b", "web-0"); ok {
		t.Error("podByName found b/web-0, which is not cached")
	}
}

func TestAClaimEventWakesTheSetItsNameBelongsTo(t *testing.T) {
	sets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, s := range []*appsv1.StatefulSet{
		testgen.StatefulSet("web", testgen.ClaimTemplates("data")),
		testgen.StatefulSet("my-web", testgen.ClaimTemplates("www-data")),
		testgen.StatefulSet("db", testgen.ClaimTemplates("logs")),
	} {
		if err := sets.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	ns := testgen.StatefulSet("web").Namespace
	for claim, want := range map[string][]string{
		"data-web-3":        {ns + "/web"},
		"www-data-my-web-0": {ns + "/my-web"},
		"data-db-1":         nil, // db has no template "data"
		"logs-db-x":         nil,
		"other":             nil,
	} {
		c := &Controller{sets: appslisters.NewStatefulSetLister(sets), queue: workqueue.NewTypedRateLimitingQueue[string](workqueue.DefaultTypedControllerRateLimiter[string]())}
		c.claimChanged(&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: claim}})
		var got []string
		for c.queue.Len() > 0 {
			k, _ := c.queue.Get()
			got = append(got, k)
			c.queue.Done(k)
		}
		if !cmp.Equal(got, want) {
			t.Errorf("claim %s woke %v, want %v", claim, got, want)
		}
	}
}
