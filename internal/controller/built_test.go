package controller

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// unready replaces the cached ordinal-th pod of web with an unready one
// (resource version rv), as a pod event would, and returns its record.
func unready(t *testing.T, c *Controller, ordinal int32, rv string) *podRecord {
	t.Helper()
	set, err := c.sets.StatefulSets(testgen.Namespace).Get("web")
	if err != nil {
		t.Fatal(err)
	}
	revs, err := c.revs.ControllerRevisions(set.Namespace).List(labels.Everything())
	if err != nil || len(revs) != 1 {
		t.Fatalf("revisions %v, %v; want one", revs, err)
	}
	pod := testgen.Pod(set, ordinal, testgen.At(revs[0]), testgen.NotReady(time.Unix(2000, 0)))
	pod.ResourceVersion = rv
	r := newPodRecord(pod)
	if err := c.podIdx.Update(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func syncOK(t *testing.T, c *Controller, key string) {
	t.Helper()
	if _, err := c.sync(context.Background(), key); err != nil {
		t.Fatal(err)
	}
}

// While a large set changes, a sync reuses the pods and claims the last
// one made from records that did not change, and makes new ones for the
// records that did.
func TestAChangingLargeSetReusesWhatItsLastSyncBuilt(t *testing.T) {
	c, key := restingSet(t, builtMinPods)
	if c.lastBuilt(key) != nil {
		t.Fatal("a set at rest keeps what its sync built")
	}
	unready(t, c, 7, "2")
	syncOK(t, c, key)
	first := c.lastBuilt(key)
	if first == nil || len(first.pods) != builtMinPods || len(first.claims) != builtMinPods {
		t.Fatalf("a changing set of %d pods kept %v; want every pod and claim", builtMinPods, first)
	}
	changed := unready(t, c, 9, "3")
	syncOK(t, c, key)
	second := c.lastBuilt(key)
	if second == nil || len(second.pods) != builtMinPods {
		t.Fatalf("the second sync kept %v; want every pod", second)
	}
	for r, pod := range second.pods {
		old, seen := first.pods[r]
		switch {
		case r == changed && (seen || !cmp.Equal(pod, r.pod())):
			t.Errorf("the changed pod's record gave %v, want a new pod equal to the record's", pod)
		case r != changed && (!seen || old != pod):
			t.Errorf("pod %s was made again, though its record did not change", r.Name())
		}
	}
	for r, claim := range second.claims {
		if first.claims[r] != claim {
			t.Errorf("claim %s was made again, though its record did not change", r.Name())
		}
	}
}

func (c *Controller) holdsRevisionCache(key string) bool {
	return c.revCaches.has(key)
}

// A set that comes to rest, and a small set, keep nothing between syncs.
func TestASetAtRestOrSmallKeepsNothing(t *testing.T) {
	c, key := restingSet(t, builtMinPods)
	unready(t, c, 7, "2")
	syncOK(t, c, key)
	set, _ := c.sets.StatefulSets(testgen.Namespace).Get("web")
	revs, _ := c.revs.ControllerRevisions(set.Namespace).List(labels.Everything())
	ready := testgen.Pod(set, 7, testgen.At(revs[0]))
	ready.ResourceVersion = "3"
	if err := c.podIdx.Update(newPodRecord(ready)); err != nil {
		t.Fatal(err)
	}
	if !c.holdsRevisionCache(key) {
		t.Error("a changing set keeps no revision cache")
	}
	syncOK(t, c, key)
	if got := c.lastBuilt(key); got != nil {
		t.Errorf("a set back at rest keeps %d pods", len(got.pods))
	}
	if c.holdsRevisionCache(key) {
		t.Error("a set back at rest keeps its revision cache")
	}

	small, smallKey := restingSet(t, builtMinPods-1)
	unready(t, small, 7, "2")
	syncOK(t, small, smallKey)
	if got := small.lastBuilt(smallKey); got != nil {
		t.Errorf("a changing set of %d pods keeps %d pods", builtMinPods-1, len(got.pods))
	}
}
