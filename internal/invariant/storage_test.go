package invariant

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extInPlace gives the extended set a data template under InPlace claim
// updates.
func extInPlace(s *v1alpha1.StatefulSet) {
	s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
	s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
}

// claimOf is the bound data claim of ordinal ord with the given request
// and capacity.
func claimOf(ord int32, request, capacity string) *corev1.PersistentVolumeClaim {
	c := mkClaim(ord)
	c.Status.Phase = corev1.ClaimBound
	c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(request)}
	c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(capacity)}
	return c
}

// growingClaims is three Ready pods of an InPlace set whose claims of 1Gi
// exist from the start; web-2's claim has been resizing since 3 s, and at
// 20 s a resize starts on web-1's.
func growingClaims(opts ...extOpt) *history {
	h := threeReadyExt(append([]extOpt{extInPlace}, opts...)...)
	for ord := int32(0); ord < 3; ord++ {
		h.add(2.6, added, claimOf(ord, "1Gi", "1Gi"))
	}
	h.add(3, modified, claimOf(2, "2Gi", "1Gi"))
	return h.add(20, modified, claimOf(1, "2Gi", "1Gi"))
}

var storageCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name:    "starting a second resize while another claim resizes all along breaks the claim budget",
	history: func() *history { return growingClaims() },
	want:    []Rule{RuleClaimBudget},
}, {
	name:    "with maxUnavailable 2 the second resize is within the budget",
	history: func() *history { return growingClaims(extMaxUnavailable(2)) },
}, {
	name: "once the first resize has finished, the next one may start",
	history: func() *history {
		h := growingClaims()
		h.events = h.events[:len(h.events)-1]
		h.add(5, modified, claimOf(2, "2Gi", "2Gi"))
		return h.add(20, modified, claimOf(1, "2Gi", "1Gi"))
	},
}, {
	name: "a set whose claims change only when recreated is not judged",
	history: func() *history {
		return growingClaims(func(s *v1alpha1.StatefulSet) {
			s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.OnClaimDeleteVolumeClaimUpdateStrategyType
		})
	},
}}
