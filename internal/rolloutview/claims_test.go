package rolloutview

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// The status of an InPlace set lists each pod's claims: done, resizing,
// failed, or waiting its turn.
func TestRenderInPlaceClaimProgress(t *testing.T) {
	r := newRollout(testgen.ClaimTemplates("www"))
	view, ext := extendedOf(t, r.set, progressing(metav1.ConditionTrue, "RolloutProgressing", "1 of 3 pods at revision "+r.newRev.Name+" are available"),
		func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
			s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
		})
	claim := func(ord int32, capacity, request string, status corev1.ClaimResourceStatus) *corev1.PersistentVolumeClaim {
		c := testgen.Claim(r.set, "www", ord)
		c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(request)
		c.Status.Phase, c.Status.Capacity = corev1.ClaimBound, corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
		if status != "" {
			c.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: status}
		}
		return c
	}
	claims := map[string]*corev1.PersistentVolumeClaim{}
	for _, c := range []*corev1.PersistentVolumeClaim{claim(0, "1Gi", "1Gi", ""), claim(1, "1Gi", "2Gi", corev1.PersistentVolumeClaimControllerResizeInProgress), claim(2, "2Gi", "2Gi", "")} {
		claims[c.Name] = c
	}
	snap := NewExtendedSnapshot(view, ext, nil, r.pods(), claims, "")
	var b strings.Builder
	RenderStatus(&b, snap)
	golden.Check(t, "status-extended-claims.txt", b.String())
	if got := len(snap.Extended.Claims); got != 3 {
		t.Errorf("%d claims listed, want 3", got)
	}
}
