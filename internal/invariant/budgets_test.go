package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// mkBudget is the PodDisruptionBudget "web" over the pods labelled
// app=web, with minAvailable n.
func mkBudget(n int32) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, UID: "pdb-uid"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(n)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
}

func appWeb(p *corev1.Pod) { p.Labels["app"] = "web" }

func noBudgets(s *v1alpha1.StatefulSet) {
	s.Spec.UpdateStrategy.RollingUpdate.RespectDisruptionBudgets = ptr.To(false)
}

// threeBudgeted is three Ready pods labelled app=web of an extended set.
func threeBudgeted(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, opts...))
	for i := range int32(3) {
		h.add(0.1+float64(i), added, mkPod(i, "a", appWeb)).add(0.5+float64(i), modified, mkPod(i, "a", appWeb, ready))
	}
	return h
}

func TestDisruptionBudgetRule(t *testing.T) {
	cases := []struct {
		name    string
		history func() *history
		want    []Rule
	}{{
		name: "deleting a Ready pod while minAvailable others are Ready breaks nothing",
		history: func() *history {
			return threeBudgeted().add(3, added, mkBudget(2)).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
		},
	}, {
		name: "deleting a Ready pod that leaves fewer than minAvailable Ready breaks the rule",
		history: func() *history {
			return threeBudgeted().add(3, added, mkBudget(3)).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
		},
		want: []Rule{RuleDisruptionBudget},
	}, {
		name: "a pod already terminating does not count as Ready for the next deletion",
		history: func() *history {
			h := threeBudgeted().add(3, added, mkBudget(2)).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
			return h.add(5, modified, mkPod(1, "a", appWeb, ready, terminating))
		},
		want: []Rule{RuleDisruptionBudget},
	}, {
		name: "a pod that is not Ready costs the budget nothing",
		history: func() *history {
			h := threeBudgeted().add(3, added, mkBudget(3)).add(3.5, modified, mkPod(2, "a", appWeb, notReady))
			return h.add(4, modified, mkPod(2, "a", appWeb, notReady, terminating))
		},
	}, {
		name: "a set with respectDisruptionBudgets false is not judged",
		history: func() *history {
			return threeBudgeted(noBudgets).add(3, added, mkBudget(3)).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
		},
	}, {
		name: "a budget that does not select the pod is not judged",
		history: func() *history {
			b := mkBudget(3)
			b.Spec.Selector.MatchLabels = map[string]string{"app": "db"}
			return threeBudgeted().add(3, added, b).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
		},
	}, {
		name: "a deleted budget no longer binds",
		history: func() *history {
			return threeBudgeted().add(3, added, mkBudget(3)).add(3.5, deleted, mkBudget(3)).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
		},
	}, {
		name: "a plain scale-down is not judged",
		history: func() *history {
			h := threeBudgeted().add(3, added, mkBudget(3)).add(3.5, modified, mkExt(2, gen(2)))
			return h.add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
		},
	}, {
		name: "a deletion someone else made is not judged",
		history: func() *history {
			h := threeBudgeted().add(3, added, mkBudget(3)).add(4, modified, mkPod(2, "a", appWeb, ready, terminating))
			h.external("web-2-a")
			return h
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []Rule
			for _, v := range tc.history().check() {
				if v.Rule == RuleDisruptionBudget {
					got = append(got, v.Rule)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
