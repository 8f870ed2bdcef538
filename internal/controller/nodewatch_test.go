package controller

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/internal/setkind"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// waitForNodeCaches asks for c's node caches, as an extended set's sync
// does, and waits until they have synced.
func waitForNodeCaches(t testing.TB, c *Controller) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, wait.ForeverTestTimeout, true,
		func(context.Context) (bool, error) { return c.nodesReady(), nil }); err != nil {
		t.Fatalf("the node caches did not sync: %v", err)
	}
}

// readsOf are the list and watch requests client received for resource.
func readsOf(client *fake.Clientset, resource string) int {
	n := 0
	for _, a := range client.Actions() {
		if a.GetResource().Resource == resource && (a.GetVerb() == "list" || a.GetVerb() == "watch") {
			n++
		}
	}
	return n
}

// A controller that manages the extended kind reads Nodes and
// PersistentVolumes only once an extended set is synced: with apps/v1
// sets alone it never lists or watches them. The first sync of an
// extended set waits for them and plans nothing; once they have synced,
// its syncs plan with them.
func TestNodesAndVolumesAreReadFromTheFirstExtendedSetOn(t *testing.T) {
	apps := testgen.StatefulSet("apps", testgen.Replicas(1))
	set := testgen.StatefulSet("web", testgen.Replicas(1))
	ext, err := testgen.Extended(set)
	if err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}}}
	volume := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv1"}}
	client := likeAnAPIServer(fake.NewClientset([]kruntime.Object{apps, node, volume}...))
	c := startTestController(t, client, ext)

	if _, err := c.sync(context.Background(), apps.Namespace+"/"+apps.Name); err != nil {
		t.Fatal(err)
	}
	if n, v := readsOf(client, "nodes"), readsOf(client, "persistentvolumes"); n+v != 0 {
		t.Fatalf("with apps/v1 sets alone the controller read nodes %d and volumes %d times, want none", n, v)
	}
	// The apps/v1 sync's event reaches the client from the recorder's
	// goroutine; it is let in before the extended sync's writes are counted.
	waitForCreate(t, client, "events")
	key := setkind.Extended.Key(set.Namespace, set.Name)
	client.ClearActions()
	requeue, err := c.sync(context.Background(), key)
	if err != nil || requeue != cacheLagRequeue || len(creates(client)) != 0 {
		t.Fatalf("the first extended sync returned %s, %v and wrote %v; want a requeue in %s and no write while the node caches sync",
			requeue, err, creates(client), cacheLagRequeue)
	}
	waitForNodeCaches(t, c)
	if n, v := readsOf(client, "nodes"), readsOf(client, "persistentvolumes"); n == 0 || v == 0 {
		t.Fatalf("an extended set's sync read nodes %d and volumes %d times, want both", n, v)
	}
	if _, err := c.sync(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if got := creates(client); len(got) == 0 {
		t.Error("once the node caches synced, the extended set's sync created nothing")
	}
	cached, err := c.nodeFacts.nodes.Get("n1")
	if err != nil || cached.ManagedFields != nil {
		t.Errorf("the cached node is %+v (%v), want it without managed fields", cached, err)
	}
}

// waitForCreate waits until client has received a create of resource.
func waitForCreate(t testing.TB, client *fake.Clientset, resource string) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, wait.ForeverTestTimeout, true,
		func(context.Context) (bool, error) { return slices.Contains(creates(client), resource), nil }); err != nil {
		t.Fatalf("no %s were created: %v (creates %v)", resource, err, creates(client))
	}
}

// creates are the create requests client received.
func creates(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetVerb() == "create" {
			out = append(out, c.GetResource().Resource)
		}
	}
	return out
}
