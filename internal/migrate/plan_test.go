package migrate

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/setops"
)

func TestASetControlledByAnotherObjectIsNotMigrated(t *testing.T) {
	set := appsSet()
	set.OwnerReferences = []metav1.OwnerReference{{APIVersion: "db.example.com/v1", Kind: "Cluster", Name: "orders", UID: "c1", Controller: ptr.To(true)}}
	c := Clients{Kube: fake.NewClientset(set)}
	_, err := Prepare(context.Background(), c, "shop", setops.Ref{Kind: setops.AppsV1, Name: "web"}, setops.AnyKind, true)
	want := "statefulset.apps/web is controlled by Cluster orders, which would make it again once deleted: change its kind there"
	if err == nil || err.Error() != want {
		t.Errorf("Prepare returned %v, want %q", err, want)
	}
}
