package controller

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

type failingPodControl struct{}

func (failingPodControl) Apply(context.Context, *appsv1.StatefulSet, string, []planner.Step) error {
	return errors.New("injected: the API refused the create")
}

// A sync that fails is retried on the queue's backoff, which soon outlasts
// the status hold: a count-only change must go out with the failed sync,
// or the set's status stays stale for as long as the backoff grows.
func TestAFailedSyncWritesItsCountOnlyStatusAtOnce(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(2))
	rev := testgen.RevisionOf(set, 1)
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: set.Generation, CurrentRevision: rev.Name, UpdateRevision: rev.Name, CollisionCount: ptr.To[int32](0)}
	pod := testgen.Pod(set, 0, testgen.At(rev))
	client := fake.NewClientset(set, rev, pod)
	factory := NewInformerFactory(client, "")
	c, err := New(client, factory, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.podControl = failingPodControl{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	if _, err := c.sync(ctx, set.Namespace+"/"+set.Name); err == nil {
		t.Fatal("want the sync to fail with the pod control's error")
	}
	got, err := client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Replicas != 1 || got.Status.ReadyReplicas != 1 {
		t.Errorf("status %s; want web-0 counted (replicas 1, ready 1) by the failed sync", describe(got.Status))
	}
}

func describe(s appsv1.StatefulSetStatus) string {
	return (&s).String()
}

// A roll-out held at its partition is never complete (currentRevision is
// not the update revision), so its count-only changes wait for the
// debounce. Once every pod is Available and nothing is left to do, no
// later change will carry the last one: it is written at once, as upstream
// writes it when its minReadySeconds requeue counts the pod. Held back,
// the final availableReplicas lagged the pods by a second or more after
// the set had come to rest.
func TestAPartitionedSetAtRestWritesItsStatusAtOnce(t *testing.T) {
	old := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:1"))
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:2"), testgen.Partition(1), testgen.MinReadySeconds(1))
	cur, upd := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	cur.UID, upd.UID = "uid-rev-1", "uid-rev-2"
	// web-2 was Ready but not yet Available when the status was last
	// written; it has been Ready for long since.
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: set.Generation, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 2,
		CurrentReplicas: 1, UpdatedReplicas: 2, CurrentRevision: cur.Name, UpdateRevision: upd.Name, CollisionCount: ptr.To[int32](0)}
	c, client := newTestController(t, set, cur, upd,
		testgen.Pod(set, 0, testgen.At(cur)), testgen.Pod(set, 1, testgen.At(upd)), testgen.Pod(set, 2, testgen.At(upd)))
	ctx := context.Background()

	if _, err := c.sync(ctx, set.Namespace+"/"+set.Name); err != nil {
		t.Fatal(err)
	}
	got, err := client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := got.Status; st.AvailableReplicas != 3 || st.UpdatedReplicas != 2 || st.CurrentRevision != cur.Name {
		t.Errorf("status %s; want web-2 counted available (3) at once, the roll-out still at its partition", describe(st))
	}
}
