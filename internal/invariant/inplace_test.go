package invariant

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// gatedPod is a Running pod with the controller's readiness gate, its
// condition gate, Ready as ready says, and the given image.
func gatedPod(ord int32, gate corev1.ConditionStatus, isReady bool, image string) *corev1.Pod {
	p := mkPod(ord, "a", ready)
	if !isReady {
		notReady(p)
	}
	p.Spec.NodeName = "node-1"
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: v1alpha1.InPlaceReadinessGate}}
	p.Spec.Containers = []corev1.Container{{Name: "app", Image: image}}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: v1alpha1.InPlaceReadinessGate, Status: gate, LastTransitionTime: metav1.NewTime(t0)})
	return p
}

// gatedThree is three Ready gated pods of an extended set, image app:1,
// from 0.5 s on.
func gatedThree(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, opts...))
	for ord := int32(0); ord < 3; ord++ {
		h.add(0.1+float64(ord), added, gatedPod(ord, corev1.ConditionTrue, true, "app:1"))
	}
	return h
}

// inPlaceCases judge the in-place rules; TestExtendedRules runs them.
var inPlaceCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "out of service first (gate False, not Ready), then the image changes",
	history: func() *history {
		h := gatedThree()
		h.add(20, modified, gatedPod(2, corev1.ConditionFalse, true, "app:1"))
		h.add(20.5, modified, gatedPod(2, corev1.ConditionFalse, false, "app:1"))
		return h.add(21, modified, gatedPod(2, corev1.ConditionFalse, false, "app:2"))
	},
}, {
	name: "an image changed while the pod is still a Ready endpoint breaks the gate rule",
	history: func() *history {
		h := gatedThree()
		h.add(20, modified, gatedPod(2, corev1.ConditionFalse, true, "app:1"))
		return h.add(21, modified, gatedPod(2, corev1.ConditionFalse, true, "app:2"))
	},
	want: []Rule{RuleInPlaceGate},
}, {
	name: "an image changed in place that moves the pod to another node breaks in-place-keeps",
	history: func() *history {
		h := gatedThree()
		h.add(20, modified, gatedPod(2, corev1.ConditionFalse, false, "app:1"))
		moved := gatedPod(2, corev1.ConditionFalse, false, "app:2")
		moved.Spec.NodeName = "node-2"
		return h.add(21, modified, moved)
	},
	want: []Rule{RuleInPlaceKeeps},
}, {
	name: "a second gate turned False while another pod is out of service all along breaks the budget",
	history: func() *history {
		h := gatedThree()
		h.add(3, modified, gatedPod(2, corev1.ConditionFalse, false, "app:1"))
		return h.add(20, modified, gatedPod(1, corev1.ConditionFalse, true, "app:1"))
	},
	want: []Rule{RuleInPlaceBudget},
}, {
	name: "with maxUnavailable 2 the second gate may turn False",
	history: func() *history {
		h := gatedThree(extMaxUnavailable(2))
		h.add(3, modified, gatedPod(2, corev1.ConditionFalse, false, "app:1"))
		return h.add(20, modified, gatedPod(1, corev1.ConditionFalse, true, "app:1"))
	},
}, {
	name: "a pod whose gate is False counts as unavailable even while still Ready",
	history: func() *history {
		h := gatedThree()
		h.add(3, modified, gatedPod(2, corev1.ConditionFalse, true, "app:1"))
		return h.add(20, modified, gatedPod(1, corev1.ConditionFalse, true, "app:1"))
	},
	want: []Rule{RuleInPlaceBudget},
}}
