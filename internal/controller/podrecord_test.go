package controller

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
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
	odd := testgen.Pod(set, 1, testgen.Ready(now), testgen.PodLabel("alias", "web-1"), testgen.PodLabel("empty", ""))
	odd.OwnerReferences = append([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"},
		{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "s-uid", Controller: ptr.To(false), BlockOwnerDeletion: ptr.To(false)}},
		odd.OwnerReferences...)
	odd.DeletionGracePeriodSeconds = ptr.To[int64](30)
	odd.Spec.Hostname = "other-host"
	bare := testgen.Pod(set, 2, testgen.NoVolumes())
	bare.Labels, bare.OwnerReferences = map[string]string{}, []metav1.OwnerReference{}
	inPlace := testgen.Pod(set, 1, testgen.NotReady(now))
	inPlace.Generation, inPlace.Status.ObservedGeneration = 3, 2
	inPlace.Annotations = map[string]string{"a": "b", v1alpha1.InPlaceUpdateAnnotation: `{"revision":"web-1"}`}
	inPlace.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "other"}, {ConditionType: v1alpha1.InPlaceReadinessGate}}
	inPlace.Status.Conditions = append(inPlace.Status.Conditions,
		corev1.PodCondition{Type: v1alpha1.InPlaceReadinessGate, Status: corev1.ConditionFalse, Reason: "InPlaceUpdate"},
		corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionFalse},
		corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: corev1.PodReasonDeferred, Message: "m"})
	gatedOnly := testgen.Pod(set, 0)
	gatedOnly.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
	hooked := testgen.Pod(set, 2, testgen.Ready(now), testgen.PodLabel(v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone),
		testgen.PodLabel(v1alpha1.PreDeleteHookLabel, v1alpha1.HookPending))
	hooked.Annotations = map[string]string{"a": "b", v1alpha1.PreUpdateHookLabel: `{"since":"2026-11-25T10:00:00Z"}`, v1alpha1.PreDeleteHookLabel: `{"since":"2026-11-25T10:01:00Z"}`}
	hookedInPlace := inPlace.DeepCopy()
	hookedInPlace.Annotations[v1alpha1.PreUpdateHookLabel] = `{"since":"2026-11-25T10:00:00Z"}`
	nameless := testgen.Pod(set, 0)
	nameless.Labels, nameless.OwnerReferences, nameless.Spec.Hostname = nil, nil, ""
	return map[string]*corev1.Pod{
		"several owners, labels valued as the name and empty": odd,
		"empty label map and owner list":                      bare,
		"no labels, owners or hostname":                       nameless,
		"ready":                                               testgen.Pod(set, 0, testgen.Ready(now)),
		"not ready":                                           testgen.Pod(set, 1, testgen.NotReady(now)),
		"pending without conditions":                          testgen.Pod(set, 1, testgen.Pending()),
		"terminating":                                         testgen.Pod(set, 0, testgen.Ready(now), testgen.Terminating(now)),
		"no volumes, no phase":                                testgen.Pod(set, 0, testgen.NoVolumes(), testgen.NoPhase()),
		"extra volumes and statuses":                          withExtras,
		"updated in place, resize pending":                    inPlace,
		"gated, no condition yet":                             gatedOnly,
		"waiting on lifecycle hooks":                          hooked,
		"updated in place, with a hook":                       hookedInPlace,
		"failed, foreign-named":                               testgen.Pod(set, 0, testgen.Failed(), testgen.Named("web-x")),
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
			if diff := cmp.Diff(&rec.pod().ObjectMeta, readMeta(rec.GetObjectMeta())); diff != "" {
				t.Errorf("GetObjectMeta differs from pod() (-want +got):\n%s", diff)
			}
			if got, want := rec.controllerRef(), metav1.GetControllerOf(pod); !cmp.Equal(got, want) {
				t.Errorf("controllerRef() = %v, want %v", got, want)
			}
			// The copy shares nothing the original would see changed.
			want := rec.pod()
			for i := range cp.labels {
				cp.labels[i] = labelPair{key: intern("changed"), value: intern("changed")}
			}
			if cp.deletionGrace != nil {
				*cp.deletionGrace = 99
			}
			for i := range cp.claimVolumes {
				cp.claimVolumes[i].PersistentVolumeClaim.ClaimName = "changed"
			}
			if diff := cmp.Diff(want, rec.pod()); diff != "" {
				t.Errorf("changing the copy changed the record (-before +after):\n%s", diff)
			}
		})
	}
}

func TestOrphansAreIndexedByTheSetTheirNameBelongsTo(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{orphanIndex: indexOrphanByParent})
	owned := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u", Controller: ptr.To(true)}}
	for _, m := range []metav1.ObjectMeta{
		{Namespace: "a", Name: "web-0"},
		{Namespace: "a", Name: "my-web-12"},
		{Namespace: "a", Name: "web-1", OwnerReferences: owned},
		{Namespace: "a", Name: "web-x"},
		{Namespace: "a", Name: "web-"},
		{Namespace: "b", Name: "web-2"},
	} {
		if err := idx.Add(newPodRecord(&corev1.Pod{ObjectMeta: m})); err != nil {
			t.Fatal(err)
		}
	}
	names := func(key string) []string {
		var out []string
		for _, r := range byIndex[*podRecord](idx, orphanIndex, key) {
			out = append(out, r.Namespace()+"/"+r.Name())
		}
		sort.Strings(out)
		return out
	}
	for key, want := range map[string][]string{"a/web": {"a/web-0"}, "a/my-web": {"a/my-web-12"}, "b/web": {"b/web-2"}, "a/my": nil} {
		if got := names(key); !cmp.Equal(got, want) {
			t.Errorf("orphans of %s: %v, want %v", key, got, want)
		}
	}
	if r, ok := podByName(idx, "b", "web-2"); !ok || r.Namespace() != "b" {
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
		c := &Controller{sets: appslisters.NewStatefulSetLister(sets), paces: newPaces(&memories{}), now: time.Now,
			queue: workqueue.NewTypedRateLimitingQueue[string](workqueue.DefaultTypedControllerRateLimiter[string]())}
		c.claimChanged(newClaimRecord(&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: claim}}))
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

// The pods are most of what the controller keeps; a record must stay small.
// A set's pod as the API returns it (four labels, a controller reference,
// no claims) is measured, with the cache's key and indexes. Records that
// held a whole metav1.ObjectMeta took 1279 bytes in this test.
func TestAPodRecordInTheCacheTakesUnder700Bytes(t *testing.T) {
	const sets, perSet = 200, 10
	pods := make([]*corev1.Pod, 0, sets*perSet)
	for s := range sets {
		set := testgen.StatefulSet(fmt.Sprintf("s%04d", s), testgen.Replicas(perSet))
		set.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", s))
		for i := range int32(perSet) {
			p := testgen.Pod(set, i, testgen.NoVolumes(), testgen.Ready(time.Unix(1000, 0)))
			p.UID = types.UID(fmt.Sprintf("10000000-0000-0000-0000-%012d", s*perSet+int(i)))
			p.ResourceVersion = fmt.Sprint(100000 + s*perSet + int(i))
			pods = append(pods, clonePod(p))
		}
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc, ownerIndex: indexByOwner, orphanIndex: indexOrphanByParent})
	for i, p := range pods {
		rec, _ := stripForCache(p)
		if err := idx.Add(rec); err != nil {
			t.Fatal(err)
		}
		pods[i] = nil // as the informer drops the decoded pod
	}
	pods = nil
	with := heapInUse()
	runtime.KeepAlive(idx)
	idx = nil
	perPod := float64(with-heapInUse()) / (sets * perSet)
	t.Logf("%.0f bytes per cached pod", perPod)
	if perPod > 700 {
		t.Errorf("a cached pod takes %.0f bytes, want at most 700", perPod)
	}
}

// readMeta is what an accessor's getters show of the fields a record
// keeps.
func readMeta(m metav1.Object) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
		ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
		DeletionTimestamp: m.GetDeletionTimestamp(), DeletionGracePeriodSeconds: m.GetDeletionGracePeriodSeconds(),
		Labels: m.GetLabels(), OwnerReferences: m.GetOwnerReferences(), Generation: m.GetGeneration(), Annotations: m.GetAnnotations()}
}

// Setting a field of a record's metadata changes only that copy, and a
// field read after it was set is what was set.
func TestARecordsMetadataIsACopy(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1))
	rec := newPodRecord(testgen.Pod(set, 0))
	m := rec.GetObjectMeta()
	m.SetLabels(map[string]string{"a": "b"})
	m.SetOwnerReferences(nil)
	m.SetName("other")
	if diff := cmp.Diff(&metav1.ObjectMeta{Name: "other", Namespace: set.Namespace, UID: rec.uid, CreationTimestamp: rec.created,
		Labels: map[string]string{"a": "b"}}, readMeta(m)); diff != "" {
		t.Errorf("the changed copy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&rec.pod().ObjectMeta, readMeta(rec.GetObjectMeta())); diff != "" {
		t.Errorf("changing a copy changed the record (-want +got):\n%s", diff)
	}
}

// clonePod gives every string and map of p its own memory, as a pod
// decoded from the API has, so nothing is shared by accident.
func clonePod(p *corev1.Pod) *corev1.Pod {
	data, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	out := &corev1.Pod{}
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
	return out
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// A sync of a set that has nothing kept from its last sync turns every
// record of its set back into a pod.
func BenchmarkPodsOfAThousandRecords(b *testing.B) {
	set := testgen.StatefulSet("web", testgen.Replicas(1000), testgen.ClaimTemplates("data"))
	records := make([]*podRecord, 1000)
	for i := range records {
		rec, _ := stripForCache(clonePod(testgen.Pod(set, int32(i), testgen.Ready(time.Unix(1000, 0)))))
		records[i] = rec.(*podRecord)
	}
	b.ReportAllocs()
	for b.Loop() {
		newBuilder(nil).pods(records)
	}
}

// What the claim informer does with each event of a bound claim.
func BenchmarkAClaimEvent(b *testing.B) {
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("data"))
	bound := testgen.Claim(set, "data", 0)
	bound.Status.Phase = corev1.ClaimBound
	bound.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes"}
	bound.Spec.VolumeName = "pv-1"
	bound.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	b.ReportAllocs()
	for b.Loop() {
		newClaimRecord(bound)
	}
}

// The planner must see the same claim through the cache as TrimClaim gives.
func TestClaimRecordRoundTripsTrimClaim(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.ClaimTemplates("data"))
	pod := testgen.Pod(set, 1)
	bound := testgen.Claim(set, "data", 0)
	bound.Status.Phase = corev1.ClaimBound
	bound.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	bound.Spec.VolumeName = "pv-1"
	resizing := bound.DeepCopy()
	resizing.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	resizing.Spec.VolumeAttributesClassName = ptr.To("fast")
	resizing.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	resizing.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimNodeResizePending}
	resizing.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimFileSystemResizePending, Status: corev1.ConditionTrue}}
	resizing.Status.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: "fast", Status: corev1.PersistentVolumeClaimModifyVolumeInProgress}
	for name, claim := range map[string]*corev1.PersistentVolumeClaim{
		"bound, with extras":     bound,
		"resizing and modifying": resizing,
		"owned by the set":       testgen.Claim(set, "data", 1, testgen.OwnedBySet(set)),
		"owned by its pod":       testgen.Claim(set, "data", 1, testgen.OwnedByPod(pod)),
		"being deleted":          testgen.Claim(set, "data", 2, testgen.ClaimDeleting(time.Unix(1000, 0))),
		"foreign controller":     testgen.Claim(set, "data", 2, testgen.OwnerRef(testgen.ControllerRef("v1", "ConfigMap", "cm", "cm-uid"))),
		"no labels or owners":    {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data-web-0"}},
	} {
		t.Run(name, func(t *testing.T) {
			rec, err := stripForCache(claim)
			if err != nil {
				t.Fatal(err)
			}
			r := rec.(*claimRecord)
			if diff := cmp.Diff(planner.TrimClaim(claim), r.claim()); diff != "" {
				t.Errorf("record.claim() differs from TrimClaim (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(r.claim(), r.DeepCopyObject().(*claimRecord).claim()); diff != "" {
				t.Errorf("DeepCopyObject differs (-want +got):\n%s", diff)
			}
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if err := idx.Add(rec); err != nil {
				t.Fatal(err)
			}
			if got, ok := claimByName(idx, claim.Namespace, claim.Name); !ok || !cmp.Equal(got, r.claim()) {
				t.Errorf("claimByName(%s, %s) = %v, %v", claim.Namespace, claim.Name, got, ok)
			}
		})
	}
}
