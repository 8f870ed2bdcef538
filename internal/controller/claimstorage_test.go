package controller

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The claim patch writes exactly the fields the planner set, guarded by
// the resourceVersion, so other labels, annotations and spec fields stay.
func TestClaimStoragePatchWritesOnlyWhatThePlannerSet(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "www-web-0", ResourceVersion: "7"}
	for _, c := range []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		want  string
	}{
		{"a grow", &corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: corev1.PersistentVolumeClaimSpec{
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}}}},
			`{"metadata":{"resourceVersion":"7"},"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`},
		{"labels, annotations and a class", &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "www-web-0", ResourceVersion: "7", Labels: map[string]string{"apps.ordinal.dev/claim-revision": "web-2"}, Annotations: map[string]string{"backup": "daily"}},
			Spec:       corev1.PersistentVolumeClaimSpec{VolumeAttributesClassName: ptr.To("fast")}},
			`{"metadata":{"annotations":{"backup":"daily"},"labels":{"apps.ordinal.dev/claim-revision":"web-2"},"resourceVersion":"7"},"spec":{"volumeAttributesClassName":"fast"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := claimStoragePatch(c.claim)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, string(got)); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
}
