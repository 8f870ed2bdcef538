package controller

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestARevisionNameHeldByOtherDataIsAHashCollision(t *testing.T) {
	web := testgen.StatefulSet("web")
	res, err := revision.Resolve(web, nil)
	if err != nil {
		t.Fatal(err)
	}
	squatter := res.Update.DeepCopy()
	squatter.Data = runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"metadata":{"labels":{"other":"data"}}}}}`)}
	client := fake.NewClientset(squatter)
	got, err := (&apiHistory{client: client}).Persist(context.Background(), web, res)
	if err != nil {
		t.Fatal(err)
	}
	if got.CollisionCount != 1 || got.Update.Name == squatter.Name {
		t.Errorf("collision count %d, revision %s; want 1 and a new name, not %s", got.CollisionCount, got.Update.Name, squatter.Name)
	}
	if _, err := client.AppsV1().ControllerRevisions(web.Namespace).Get(context.Background(), got.Update.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the renamed revision was not stored: %v", err)
	}
}

func TestARevisionWithTheSameDataIsReused(t *testing.T) {
	web := testgen.StatefulSet("web")
	res, err := revision.Resolve(web, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(res.Update.DeepCopy())
	got, err := (&apiHistory{client: client}).Persist(context.Background(), web, res)
	if err != nil {
		t.Fatal(err)
	}
	if got.CollisionCount != 0 || got.Update.Name != res.Update.Name {
		t.Errorf("collision count %d, revision %s; want 0 and %s reused", got.CollisionCount, got.Update.Name, res.Update.Name)
	}
}

func TestDeletingARevisionThatIsGoneSucceeds(t *testing.T) {
	rev := &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "u"}}
	if err := (&apiHistory{client: fake.NewClientset()}).Delete(context.Background(), rev); err != nil {
		t.Errorf("deleting a revision that is gone: %v", err)
	}
}
