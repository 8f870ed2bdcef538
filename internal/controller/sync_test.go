package controller

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A new OrderedReady set's first sync, through the whole controller on a
// fake client: one revision, web-0's claim, web-0, and the status; the
// next sync waits for the cache to show web-0 instead of acting on a
// cache older than its own write.
func TestTheFirstSyncOfANewSetCreatesItsFirstPodAndWaitsForTheCache(t *testing.T) {
	web := testgen.StatefulSet("web", testgen.Replicas(2), testgen.ClaimTemplates("data"))
	web.ResourceVersion = "1"
	c, client := newTestController(t, web)
	key := web.Namespace + "/web"
	client.ClearActions()

	requeue, err := c.sync(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"create controllerrevisions", "create persistentvolumeclaims", "create pods", "update statefulsets/status"}
	if diff := cmp.Diff(want, writes(client)); diff != "" {
		t.Errorf("first sync's writes (-want +got):\n%s", diff)
	}
	if requeue != 0 {
		t.Errorf("requeue after %s, want none: web-0's events wake the set", requeue)
	}
	stored, err := client.AppsV1().StatefulSets(web.Namespace).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := stored.Status; st.ObservedGeneration != 1 || st.UpdateRevision == "" || st.CurrentRevision != st.UpdateRevision {
		t.Errorf("stored status %+v, want generation 1 observed and the first revision current and update", st)
	}

	// Until the cache shows web-0, a sync does nothing and looks again
	// soon: once the informer has delivered web-0, take it out of the
	// cache again, as if it had not arrived yet.
	waitCached(t, "web-0", func() bool { _, ok := podByName(c.podIdx, web.Namespace, "web-0"); return ok })
	if err := c.podIdx.Delete(recordOf(testgen.Pod(web, 0))); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	requeue, err = c.sync(context.Background(), key)
	if err != nil || requeue != cacheLagRequeue || len(writes(client)) != 0 {
		t.Errorf("sync with a lagging cache: requeue %s, error %v, writes %q; want %s, none, none", requeue, err, writes(client), cacheLagRequeue)
	}
}

func TestADeletedSetIsForgottenInOneCall(t *testing.T) {
	web := testgen.StatefulSet("web")
	calls := &forgettingCaller{}
	c, client := newTestControllerWith(t, Options{Workers: 1}, func(c *Controller) { c.calls = calls }, web)
	key := web.Namespace + "/web"
	if _, err := c.sync(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if !c.gauges.has(key) || !c.paces.buckets.has(key) {
		t.Fatal("a synced set has no gauges or sync bucket")
	}
	if err := client.AppsV1().StatefulSets(web.Namespace).Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCached(t, "the set's deletion", func() bool {
		_, err := c.sets.StatefulSets(web.Namespace).Get("web")
		return err != nil
	})
	if _, err := c.sync(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.memories.all {
		if m.has(key) {
			t.Errorf("a deleted set is still in the memory %T", m)
		}
	}
	if want := []string{key}; !slices.Equal(calls.forgot, want) {
		t.Errorf("the calls to pods forgot %v, want %v", calls.forgot, want)
	}
}
