package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func inGroup(g string) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.RolloutGroup = g }
}

// named renames an extended set (and its uid).
func named(name string) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Name, s.UID = name, types.UID(name+"-uid") }
}

// podOf is mkPod for the set named set.
func podOf(set string, ord int32, rev string, opts ...podOpt) *corev1.Pod {
	p := mkPod(ord, "a", append([]podOpt{ready}, opts...)...)
	p.Name, p.UID = podName(set, ord), types.UID(podName(set, ord)+"-a")
	p.OwnerReferences[0].Name, p.OwnerReferences[0].UID = set, types.UID(set+"-uid")
	p.Labels[RevisionLabel] = rev
	return p
}

func TestRolloutGroupRule(t *testing.T) {
	// Two sets of group "zones", each with 2 pods at r1 and an update to r2.
	base := func(groupB string) *history {
		h := &history{}
		h.add(0, added, mkExt(2, named("a"), inGroup("zones"), extRevisions("r1", "r2")))
		h.add(0, added, mkExt(2, named("b"), inGroup(groupB), extRevisions("r1", "r2")))
		for _, s := range []string{"a", "b"} {
			h.add(0.5, added, podOf(s, 0, "r1")).add(0.6, added, podOf(s, 1, "r1"))
		}
		return h
	}
	cases := []struct {
		name    string
		history func() *history
		want    []Rule
	}{{
		name: "b starts once a is done",
		history: func() *history {
			h := base("zones").add(1, modified, podOf("a", 1, "r1", terminating)).add(2, deleted, podOf("a", 1, "r1", terminating))
			h.add(3, added, podOf("a", 1, "r2")).add(4, modified, podOf("a", 0, "r1", terminating)).add(5, deleted, podOf("a", 0, "r1", terminating))
			return h.add(6, added, podOf("a", 0, "r2")).add(7, modified, podOf("b", 1, "r1", terminating))
		},
	}, {
		name: "b starts while a is half done",
		history: func() *history {
			h := base("zones").add(1, modified, podOf("a", 1, "r1", terminating)).add(2, deleted, podOf("a", 1, "r1", terminating))
			return h.add(3, added, podOf("a", 1, "r2")).add(4, modified, podOf("b", 1, "r1", terminating))
		},
		want: []Rule{RuleRolloutGroup},
	}, {
		name: "sets of different groups update side by side",
		history: func() *history {
			h := base("other").add(1, modified, podOf("a", 1, "r1", terminating))
			return h.add(1.5, modified, podOf("b", 1, "r1", terminating))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []Rule
			for _, v := range tc.history().check() {
				if v.Rule == RuleRolloutGroup {
					got = append(got, v.Rule)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
