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
