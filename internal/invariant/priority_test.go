package invariant

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// extPrimaryLast gives role=primary weight -100.
func extPrimaryLast(s *v1alpha1.StatefulSet) {
	s.Spec.UpdateStrategy.RollingUpdate.Priority = []v1alpha1.UpdatePriorityRule{
		{Weight: -100, Selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}}},
	}
}

func primary(p *corev1.Pod) { p.Labels["role"] = "primary" }

func requested(p *corev1.Pod) { p.Labels[v1alpha1.DeleteRequestedLabel] = "true" }

func extPartition(n int32) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = &n }
}

// rollingThree is an extended set of 3 rolling from web-r1 to web-r2 with
// the primary last, all three pods Ready at web-r1 from 0.5s and the pod at
// ordinal primaryAt labelled role=primary.
func rollingThree(primaryAt int32, opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, append([]extOpt{extPrimaryLast, extRevisions("web-r1", "web-r2")}, opts...)...))
	for ord := int32(0); ord < 3; ord++ {
		pod := []podOpt{ready}
		if ord == primaryAt {
			pod = append(pod, primary)
		}
		h.add(0.1+float64(ord), added, mkPod(ord, "a", pod...)).add(0.5+float64(ord), modified, mkPod(ord, "a", pod...))
	}
	return h
}

// priorityCases judge RulePriorityOrder; TestExtendedRules runs them
// with the kind's other cases, in any arrival order too.
var priorityCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name:    "deleting a follower while the primary waits is the order asked for",
	history: func() *history { return rollingThree(2).add(20, modified, mkPod(1, "a", ready, terminating)) },
}, {
	name:    "deleting the primary while a follower waits Available breaks priority-order",
	history: func() *history { return rollingThree(2).add(20, modified, mkPod(2, "a", ready, primary, terminating)) },
	want:    []Rule{RulePriorityOrder},
}, {
	name: "among equal weights a lower ordinal going first breaks priority-order",
	history: func() *history {
		return rollingThree(0).add(20, modified, mkPod(1, "a", ready, terminating))
	},
	want: []Rule{RulePriorityOrder},
}, {
	name: "the primary may go once the follower before it is terminating",
	history: func() *history {
		h := rollingThree(2).add(20, modified, mkPod(1, "a", ready, terminating))
		h.add(20.1, modified, mkPod(0, "a", ready, terminating))
		return h.add(20.2, modified, mkPod(2, "a", ready, primary, terminating))
	},
}, {
	name: "a relabel within the window excuses either order",
	history: func() *history {
		h := rollingThree(1)
		h.add(18, modified, mkPod(1, "a", ready)).add(18.1, modified, mkPod(2, "a", ready, primary))
		return h.add(20, modified, mkPod(1, "a", ready, terminating))
	},
}, {
	name: "a relabel before the window binds",
	history: func() *history {
		h := rollingThree(1)
		h.add(5, modified, mkPod(1, "a", ready)).add(5.1, modified, mkPod(2, "a", ready, primary))
		return h.add(20, modified, mkPod(2, "a", ready, primary, terminating))
	},
	want: []Rule{RulePriorityOrder},
}, {
	name: "an unavailable primary is replaced for free",
	history: func() *history {
		h := rollingThree(2).add(15, modified, mkPod(2, "a", notReady, primary))
		return h.add(20, modified, mkPod(2, "a", notReady, primary, terminating))
	},
}, {
	name: "a follower unavailable within the window does not bind",
	history: func() *history {
		h := rollingThree(2).add(15, modified, mkPod(1, "a", notReady)).add(16, modified, mkPod(1, "a", ready))
		h.add(16.1, modified, mkPod(0, "a", ready, terminating)).add(16.2, deleted, mkPod(0, "a", ready, terminating))
		return h.add(20, modified, mkPod(2, "a", ready, primary, terminating))
	},
}, {
	name: "a follower below the partition does not bind",
	history: func() *history {
		h := rollingThree(2, extPartition(2))
		return h.add(20, modified, mkPod(2, "a", ready, primary, terminating))
	},
}, {
	name: "a follower at the update revision does not bind",
	history: func() *history {
		h := rollingThree(2)
		h.add(10, deleted, mkPod(0, "a", ready)).add(10.1, added, mkPod(0, "b", ready, rev("web-r2")))
		h.add(11, deleted, mkPod(1, "a", ready)).add(11.1, added, mkPod(1, "b", ready, rev("web-r2")))
		return h.add(20, modified, mkPod(2, "a", ready, primary, terminating))
	},
}, {
	name: "a template change inside the window still binds a follower at the deleted pod's revision",
	history: func() *history {
		h := rollingThree(2).add(15, modified, mkExt(3, gen(2), extPrimaryLast, extRevisions("web-r1", "web-r3")))
		return h.add(20, modified, mkPod(2, "a", ready, primary, terminating))
	},
	want: []Rule{RulePriorityOrder},
}, {
	name: "a pod created inside the window is judged on its own states",
	history: func() *history {
		h := rollingThree(2).add(11, modified, mkPod(2, "a", failed, primary)).add(11.5, deleted, mkPod(2, "a", failed, primary))
		h.add(12, added, mkPod(2, "b", primary)).add(12.5, modified, mkPod(2, "b", ready, primary))
		return h.add(23, modified, mkPod(2, "b", ready, primary, terminating))
	},
	want: []Rule{RulePriorityOrder},
}, {
	name: "a follower created inside the window does not bind",
	history: func() *history {
		h := rollingThree(2).add(11, modified, mkPod(1, "a", failed)).add(11.5, deleted, mkPod(1, "a", failed))
		h.add(12, added, mkPod(1, "b")).add(12.5, modified, mkPod(1, "b", ready))
		h.add(12.6, modified, mkPod(0, "a", ready, terminating)).add(12.7, deleted, mkPod(0, "a", ready, terminating))
		return h.add(20, modified, mkPod(2, "a", ready, primary, terminating))
	},
}, {
	name: "a pod labelled for deletion may go out of order",
	history: func() *history {
		h := rollingThree(2).add(15, modified, mkPod(2, "a", ready, primary, requested))
		return h.add(20, modified, mkPod(2, "a", ready, primary, requested, terminating))
	},
}, {
	name: "without rules the order is ordered-update's to judge",
	history: func() *history {
		h := threeReadyExt(extParallel, extMaxUnavailable(3), extRevisions("web-r1", "web-r2"))
		return h.add(20, modified, mkPod(0, "a", ready, terminating))
	},
}}
