package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// mkExtended is a Parallel extended set "web" of 3 replicas (the pods'
// owner) reserving the given entries.
func mkExtended(reserve ...intstr.IntOrString) *v1alpha1.StatefulSet {
	return &v1alpha1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, UID: "set-uid"},
		Spec: v1alpha1.StatefulSetSpec{Replicas: ptr.To[int32](3), PodManagementPolicy: appsv1.ParallelPodManagement,
			ReserveOrdinals: reserve},
	}
}

func TestReservedOrdinalRule(t *testing.T) {
	one := intstr.FromInt32(1)
	cases := []struct {
		name    string
		history func() *history
		want    []Rule
	}{{
		name: "pods at free ordinals break nothing",
		history: func() *history {
			h := (&history{}).add(0, added, mkExtended(one))
			return h.add(1, added, mkPod(0, "a")).add(2, added, mkPod(2, "a"))
		},
	}, {
		name: "the set's ordinals skip the reserved ones: with 1 reserved, 3 replicas run at 0, 2 and 3",
		history: func() *history {
			h := (&history{}).add(0, added, mkExtended(one))
			return h.add(1, added, mkPod(0, "a")).add(2, added, mkPod(2, "a")).add(3, added, mkPod(3, "a"))
		},
	}, {
		name: "a pod past the set's ordinals breaks the range, reserved ordinals or not",
		history: func() *history {
			return (&history{}).add(0, added, mkExtended(one)).add(1, added, mkPod(4, "a"))
		},
		want: []Rule{RuleOrdinalRange},
	}, {
		name: "a pod created at a reserved ordinal breaks the rule",
		history: func() *history {
			return (&history{}).add(0, added, mkExtended(intstr.FromString("1-3"))).add(1, added, mkPod(2, "a"))
		},
		want: []Rule{RuleOrdinalRange, RuleReservedOrdinal},
	}, {
		name: "a pod created just after the reservation, by a controller that had not seen it yet, is tolerated",
		history: func() *history {
			h := (&history{}).add(0, added, mkExtended()).add(20, modified, mkExtended(one))
			return h.add(21, added, mkPod(1, "a"))
		},
	}, {
		name: "a pod created long after the reservation breaks the rule",
		history: func() *history {
			h := (&history{}).add(0, added, mkExtended()).add(20, modified, mkExtended(one))
			return h.add(40, added, mkPod(1, "a"))
		},
		want: []Rule{RuleOrdinalRange, RuleReservedOrdinal},
	}, {
		name: "a pod created once the reservation is lifted is fine",
		history: func() *history {
			h := (&history{}).add(0, added, mkExtended(one)).add(20, modified, mkExtended())
			return h.add(40, added, mkPod(1, "a"))
		},
	}, {
		name: "a pod another set owns is not judged",
		history: func() *history {
			other := mkPod(1, "a")
			other.OwnerReferences[0].UID = "other-uid"
			return (&history{}).add(0, added, mkExtended(one)).add(1, added, other)
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.history().rules()); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
