package controller

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/setkind"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// restingSet is a set of n Ready pods with one bound claim each, all at
// the set's revision, in a controller whose caches hold them, and one
// sync done.
func restingSet(b testing.TB, n int32) (*Controller, string) {
	set := testgen.StatefulSet("web", testgen.Replicas(n), testgen.Parallel(), testgen.ClaimTemplates("data"))
	set.ResourceVersion = "1"
	rev := testgen.RevisionOf(set, 1)
	rev.UID, rev.ResourceVersion = "rev-uid", "1" // as the API server gives it
	rev.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, setkind.AppsV1.GroupVersionKind())}
	objs := []runtime.Object{set, rev}
	for i := range n {
		claim := testgen.Claim(set, "data", i)
		claim.Status.Phase = corev1.ClaimBound
		objs = append(objs, testgen.Pod(set, i, testgen.At(rev)), claim)
	}
	c, _ := newTestController(b, objs...)
	key := set.Namespace + "/" + set.Name
	if _, err := c.sync(context.Background(), key); err != nil {
		b.Fatal(err)
	}
	return c, key
}

// One pod event of a set at rest costs one sync of the whole set.
func BenchmarkASyncOfAThousandPodSetAtRest(b *testing.B) {
	c, key := restingSet(b, 1000)
	b.ReportAllocs()
	defer testgen.ReportCPU(b)()
	for b.Loop() {
		if _, err := c.sync(context.Background(), key); err != nil {
			b.Fatal(err)
		}
	}
}

// One pod event of a set that is changing: the pod changed, and the set
// is synced. Here one pod of a thousand stays unready, so the set never
// comes to rest, and each event is a new version of it.
func BenchmarkAPodEventOfAThousandPodSetThatIsChanging(b *testing.B) {
	podEventOfAChangingSet(b, 1000)
}

// The same of a 50-pod set, the size of the ordered roll-out scenario,
// where the set's own work (its revisions) weighs more against its pods.
func BenchmarkAPodEventOfAFiftyPodSetThatIsChanging(b *testing.B) {
	podEventOfAChangingSet(b, 50)
}

func podEventOfAChangingSet(b *testing.B, size int32) {
	c, key := restingSet(b, size)
	set, err := c.sets.StatefulSets("default").Get("web")
	if err != nil {
		b.Fatal(err)
	}
	rev, _ := c.revs.ControllerRevisions(set.Namespace).List(labels.Everything())
	pods := make([]*corev1.Pod, 2)
	for i, opt := range []testgen.PodOption{testgen.NotReady(time.Unix(2000, 0)), testgen.NotReady(time.Unix(3000, 0))} {
		pods[i] = testgen.Pod(set, 7, testgen.At(rev[0]), opt)
	}
	b.ReportAllocs()
	defer testgen.ReportCPU(b)()
	n := 0
	for b.Loop() {
		n++
		pod := pods[n%2]
		pod.ResourceVersion = strconv.Itoa(n)
		if err := c.podIdx.Update(newPodRecord(pod)); err != nil {
			b.Fatal(err)
		}
		if _, err := c.sync(context.Background(), key); err != nil {
			b.Fatal(err)
		}
	}
}

// The same of a 10 000-pod set, beside the thousand: how a sync's cost
// grows with the set (the scaling curve in docs/benchmarks.md).
func BenchmarkAPodEventOfATenThousandPodSetThatIsChanging(b *testing.B) {
	podEventOfAChangingSet(b, 10000)
}

// manySets is a controller whose caches hold n sets of two Ready pods
// each (one revision each, no claims), every one synced once; it returns
// the key of the first.
func manySets(b testing.TB, n int) (*Controller, string) {
	var objs []runtime.Object
	for s := range n {
		set := testgen.StatefulSet("s"+strconv.Itoa(s), testgen.Replicas(2), testgen.Parallel())
		set.UID = types.UID("set-uid-" + strconv.Itoa(s))
		set.Spec.Selector.MatchLabels = map[string]string{"set": set.Name}
		set.Spec.Template.Labels = map[string]string{"set": set.Name}
		set.ResourceVersion = "1"
		rev := testgen.RevisionOf(set, 1)
		rev.UID, rev.ResourceVersion = types.UID("rev-uid-"+strconv.Itoa(s)), "1"
		rev.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, setkind.AppsV1.GroupVersionKind())}
		objs = append(objs, set, rev)
		for i := range int32(2) {
			objs = append(objs, testgen.Pod(set, i, testgen.At(rev)))
		}
	}
	c, _ := newTestController(b, objs...)
	for s := range n {
		if _, err := c.sync(context.Background(), testgen.Namespace+"/s"+strconv.Itoa(s)); err != nil {
			b.Fatal(err)
		}
	}
	return c, testgen.Namespace + "/s0"
}

// A sync of one small set at rest among 100 and among 5000 such sets in
// its namespace: what a set's neighbours add to its sync.
func BenchmarkASyncOfASmallSetAmongAHundred(b *testing.B)     { syncAmong(b, 100) }
func BenchmarkASyncOfASmallSetAmongFiveThousand(b *testing.B) { syncAmong(b, 5000) }

func syncAmong(b *testing.B, n int) {
	c, key := manySets(b, n)
	b.ReportAllocs()
	defer testgen.ReportCPU(b)()
	for b.Loop() {
		if _, err := c.sync(context.Background(), key); err != nil {
			b.Fatal(err)
		}
	}
}
