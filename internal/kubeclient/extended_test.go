package kubeclient

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func TestTheExtendedKindIsUsedOnlyWhereTheClusterServesIt(t *testing.T) {
	client := fake.NewClientset()
	if ok, err := ExtendedInstalled(client.Discovery()); err != nil || ok {
		t.Errorf("a cluster without the CRD: installed %v, err %v; want false, no error", ok, err)
	}
	client.Resources = []*metav1.APIResourceList{{GroupVersion: v1alpha1.SchemeGroupVersion.String(),
		APIResources: []metav1.APIResource{{Name: "statefulsets", Kind: "StatefulSet", Namespaced: true}}}}
	if ok, err := ExtendedInstalled(client.Discovery()); err != nil || !ok {
		t.Errorf("a cluster with the CRD: installed %v, err %v; want true", ok, err)
	}
}
