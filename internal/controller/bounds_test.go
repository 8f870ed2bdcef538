package controller

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// quotaRefused is the API server's answer to a pod create over a
// ResourceQuota: a huge set that hits one is synced again and again on the
// queue's backoff, each sync planning it in full.
var quotaRefused = apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web-3",
	errorString(`exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3`))

// settle is how long the background work of a sync's writes is given.
const settle = 20 * time.Millisecond

type errorString string

func (e errorString) Error() string { return string(e) }

// hugeSet is a controller holding one set of replicas replicas with three
// Ready pods and their claims, whose pod creates the API server refuses,
// synced once; the extended kind when extended is set. It returns the
// controller and the set's key.
func hugeSet(t testing.TB, replicas int32, parallel, extended bool) (*Controller, string) {
	t.Helper()
	opts := []testgen.SetOption{testgen.Replicas(replicas), testgen.ClaimTemplates("data")}
	if parallel {
		opts = append(opts, testgen.Parallel())
	}
	set := testgen.StatefulSet("web", opts...)
	set.ResourceVersion = "1"
	owner, key := setkind.AppsV1.GroupVersionKind(), set.Namespace+"/"+set.Name
	var ext *v1alpha1.StatefulSet
	if extended {
		var err error
		if ext, err = testgen.Extended(set); err != nil {
			t.Fatal(err)
		}
		ext.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromString("5-9"), intstr.FromInt32(5000)}
		owner, key = v1alpha1.Kind, setkind.Extended.Key(set.Namespace, set.Name)
	}
	rev := testgen.RevisionOf(set, 1)
	rev.UID, rev.ResourceVersion = "rev-uid", "1"
	rev.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, owner)}
	objs := []kruntime.Object{rev}
	if !extended {
		objs = append(objs, set)
	}
	for i := range int32(3) {
		claim := testgen.Claim(set, "data", i)
		claim.Status.Phase = corev1.ClaimBound
		pod := testgen.Pod(set, i, testgen.At(rev))
		pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, owner)}
		objs = append(objs, pod, claim)
	}
	client := likeAnAPIServer(fake.NewClientset(objs...))
	failing(client, "create", "pods", "", quotaRefused)
	c := startTestController(t, client, ext)
	if extended {
		waitForNodeCaches(t, c)
	}
	if _, err := c.sync(context.Background(), key); err == nil {
		t.Fatal("the first sync did not report the refused create")
	}
	return c, key
}

// startTestController is newTestController on client, managing the
// extended set ext too when it is not nil.
func startTestController(t testing.TB, client *fake.Clientset, ext *v1alpha1.StatefulSet) *Controller {
	t.Helper()
	return startTestControllerWith(t, client, ext, nil)
}

// startTestControllerWith is startTestController with setup run on the
// controller before its informers start (a clock, say, that handlers read).
func startTestControllerWith(t testing.TB, client *fake.Clientset, ext *v1alpha1.StatefulSet, setup func(*Controller)) *Controller {
	t.Helper()
	var opts Options
	if ext != nil {
		u, err := ostsclient.ToUnstructured(ext)
		if err != nil {
			t.Fatal(err)
		}
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(kruntime.NewScheme(),
			map[schema.GroupVersionResource]string{v1alpha1.Resource: "StatefulSetList"}, u)
		opts.Extended = ostsclient.New(dyn)
	}
	return startController(t, client, opts, setup)
}

// perSync is what one sync of key allocates: the median over runs syncs
// of the bytes and objects the runtime counts from just before each to
// a moment after it, so that what its writes cause in the background
// (the event recorder, the informers) counts with it.
func perSync(t testing.TB, c *Controller, key string, runs int) (bytes, objects uint64) {
	var b, o []uint64
	for range runs {
		time.Sleep(settle)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := c.sync(context.Background(), key); err == nil {
			t.Fatal("a sync did not report the refused create")
		}
		time.Sleep(settle)
		runtime.ReadMemStats(&after)
		b, o = append(b, after.TotalAlloc-before.TotalAlloc), append(o, after.Mallocs-before.Mallocs)
	}
	slices.Sort(b)
	slices.Sort(o)
	return b[runs/2], o[runs/2]
}

// A sync of a set whose spec.replicas is far beyond its pods costs what a
// sync of a small set does: the planner builds pods only for the ordinals
// the sync acts on, and the controller looks up claims by the pods and
// claims that exist, not by every ordinal. The set's creates are refused
// (a ResourceQuota), so every sync plans it in full and none creates a
// pod; a million replicas of apps/v1 (which has no maximum) and the
// extended kind's maximum must each allocate at most twice what a
// thousand do.
func TestAHugeSetCostsASyncWhatASmallSetDoes(t *testing.T) {
	for _, tc := range []struct {
		name               string
		parallel, extended bool
	}{
		{"apps/v1 OrderedReady", false, false},
		{"apps/v1 Parallel", true, false},
		{"extended OrderedReady", false, true},
		{"extended Parallel", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sizes := []int32{1000, 100_000, 1_000_000}
			if tc.extended {
				sizes = []int32{1000, v1alpha1.MaxReplicas}
			}
			var small uint64
			for _, replicas := range sizes {
				c, key := hugeSet(t, replicas, tc.parallel, tc.extended)
				bytes, objects := perSync(t, c, key, 11)
				t.Logf("replicas %d: %d KiB and %d objects allocated per sync", replicas, bytes>>10, objects)
				if replicas == sizes[0] {
					small = bytes
				} else if bytes > 2*small {
					t.Errorf("a sync at %d replicas allocates %d KiB, more than twice the %d KiB at %d", replicas, bytes>>10, small>>10, sizes[0])
				}
			}
		})
	}
}

// Under a QPS limit a set's Parallel batch writes at most the client's
// burst of pods at once (Options.BurstInFlight), so other sets' requests
// queue behind that many, not behind a batch of up to 500; which pods
// the batch writes stays upstream's: all of them, in order.
func TestABatchWritesAtMostBurstInFlightPodsAtOnce(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(200), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	plan := planner.Compute(planner.Input{Set: set, Current: rev, Update: rev, Now: testgen.Epoch})
	for _, tc := range []struct {
		inFlight int
		want     func(peak int64) bool
		words    string
	}{
		{3, func(peak int64) bool { return peak <= 3 }, "at most 3"},
		{0, func(peak int64) bool { return peak > 3 }, "more than 3 (the whole batch)"},
	} {
		// An API server that takes a while over each create, counting the
		// creates under way (the fake clientset runs one call at a time).
		var now, peak, created atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(5 * time.Millisecond)
			now.Add(-1)
			created.Add(1)
			var pod corev1.Pod
			if err := json.NewDecoder(r.Body).Decode(&pod); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			pod.APIVersion, pod.Kind, pod.UID = "v1", "Pod", types.UID(pod.Name)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(&pod)
		}))
		client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
		if err != nil {
			t.Fatal(err)
		}
		pc := &apiPodControl{client: client, recorder: record.NewFakeRecorder(1000), exp: newExpectations(&memories{}, time.Now), inFlight: tc.inFlight}
		if err := pc.Apply(context.Background(), set, "default/web", plan.Steps); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		if got := created.Load(); got != 200 {
			t.Errorf("in flight %d: %d creates, want 200", tc.inFlight, got)
		}
		if !tc.want(peak.Load()) {
			t.Errorf("in flight %d: %d creates at once, want %s", tc.inFlight, peak.Load(), tc.words)
		}
	}
}
