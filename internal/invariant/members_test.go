package invariant

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extPostCreate gives the set a postCreate handshake.
func extPostCreate(s *v1alpha1.StatefulSet) {
	s.Spec.Lifecycle = &v1alpha1.Lifecycle{PostCreate: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: 300}}
}

// extOffline lists ordinals offline, with a claim template "data" and
// whenScaled Delete.
func extOffline(ords ...int) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
		s.Spec.PersistentVolumeClaimRetentionPolicy = &v1alpha1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
		for _, o := range ords {
			s.Spec.OfflineOrdinals = append(s.Spec.OfflineOrdinals, intstr.FromInt(o))
		}
	}
}

// joiningPod is a pod labelled postCreate Pending, not Ready.
func joiningPod(ord int32, gen string) *corev1.Pod {
	return mkPod(ord, gen, notReady, rev("web-r1"), hookLabel(v1alpha1.PostCreateHookLabel, v1alpha1.HookPending))
}

// memberCases judge RuleMemberJoin and RuleOfflineClaims; TestExtendedRules
// runs them.
var memberCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "OrderedReady creates the next pod while the one below waits on its postCreate hook",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(3, extPostCreate))
		h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
		h.add(1.1, added, joiningPod(1, "a"))
		return h.add(20, added, mkPod(2, "a"))
	},
	want: []Rule{RuleOrderedCreate, RuleMemberJoin},
}, {
	name: "the next pod is created once the member joined",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(3, extPostCreate))
		h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
		h.add(1.1, added, joiningPod(1, "a"))
		h.add(5, modified, mkPod(1, "a", ready, hookLabel(v1alpha1.PostCreateHookLabel, v1alpha1.HookDone)))
		return h.add(20, added, mkPod(2, "a"))
	},
}, {
	name: "a pod taken out of service in place while another waits on its postCreate hook",
	history: func() *history {
		h := gatedThree(extPostCreate)
		h.add(3, modified, gatedPod(2, corev1.ConditionTrue, false, "app:1"))
		joined := gatedPod(2, corev1.ConditionTrue, false, "app:1")
		hookLabel(v1alpha1.PostCreateHookLabel, v1alpha1.HookPending)(joined)
		h.add(3.5, modified, joined)
		return h.add(20, modified, gatedPod(1, corev1.ConditionFalse, true, "app:1"))
	},
	want: []Rule{RuleInPlaceBudget, RuleMemberJoin},
}, {
	name: "an offline member's claim deleted",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(3, extOffline(1)))
		h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
		h.add(2.1, added, mkPod(2, "a")).add(2.5, modified, mkPod(2, "a", ready))
		h.add(3, added, mkClaim(1))
		return h.add(20, modified, mkClaim(1, claimDeleting))
	},
	want: []Rule{RuleOfflineClaims},
}, {
	name: "an offline member's claim given to its pod",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(3, extOffline(1)))
		h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
		h.add(2.1, added, mkPod(2, "a")).add(2.5, modified, mkPod(2, "a", ready))
		h.add(3, added, mkClaim(1))
		return h.add(20, modified, mkClaim(1, ownedByPod(1)))
	},
	want: []Rule{RuleOfflineClaims},
}, {
	name: "an offline member's pod stopped and its claim kept; the other pods stay in range",
	history: func() *history {
		h := threeReadyExt()
		h.add(3, added, mkClaim(1))
		h.add(4, modified, mkExt(3, gen(2), extOffline(1)))
		return h.add(20, modified, mkPod(1, "a", ready, terminating))
	},
}}
