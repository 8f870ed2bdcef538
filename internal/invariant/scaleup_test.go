package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func scaleUpMax(n int32) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		s.Spec.ScaleStrategy = &v1alpha1.ScaleStrategy{MaxUnavailable: ptr.To(intstr.FromInt32(n))}
	}
}

func TestScaleUpBudgetRule(t *testing.T) {
	cases := []struct {
		name    string
		history func() *history
		want    []Rule
	}{{
		name: "two pods not yet Ready under maxUnavailable 2, then a third once one is Ready",
		history: func() *history {
			h := (&history{}).add(0, added, mkExt(4, scaleUpMax(2)))
			h.add(1, added, mkPod(0, "a")).add(1.1, added, mkPod(1, "a"))
			return h.add(2, modified, mkPod(0, "a", readySince(2))).add(3, added, mkPod(2, "a"))
		},
	}, {
		name: "a third pod while two are not Ready breaks the rule",
		history: func() *history {
			h := (&history{}).add(0, added, mkExt(4, scaleUpMax(2)))
			return h.add(1, added, mkPod(0, "a")).add(1.1, added, mkPod(1, "a")).add(1.2, added, mkPod(2, "a"))
		},
		want: []Rule{RuleScaleUpBudget},
	}, {
		name: "without a limit a Parallel set creates them all",
		history: func() *history {
			h := (&history{}).add(0, added, mkExt(4, extParallel))
			return h.add(1, added, mkPod(0, "a")).add(1.1, added, mkPod(1, "a")).add(1.2, added, mkPod(2, "a"))
		},
	}, {
		name: "a percentage is of replicas, rounded down, at least 1",
		history: func() *history {
			h := (&history{}).add(0, added, mkExt(4, scaleUpMax(1), func(s *v1alpha1.StatefulSet) {
				s.Spec.ScaleStrategy.MaxUnavailable = ptr.To(intstr.FromString("10%"))
			}))
			return h.add(1, added, mkPod(0, "a")).add(1.1, added, mkPod(1, "a"))
		},
		want: []Rule{RuleScaleUpBudget},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []Rule
			for _, v := range tc.history().check() {
				if v.Rule == RuleScaleUpBudget {
					got = append(got, v.Rule)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
