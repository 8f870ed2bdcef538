package invariant

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func mkZoneNode(name, zone string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	if zone != "" {
		n.Labels[v1alpha1.DefaultTopologyKey] = zone
	}
	return n
}

func on(node string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = node } }

func extTopology(perDomain int32, order ...string) extOpt {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.UpdateStrategy.RollingUpdate.Topology = &v1alpha1.RolloutTopology{MaxUnavailablePerDomain: perDomain, Order: order}
	}
}

func extCount(s *v1alpha1.StatefulSet) {
	s.Spec.UpdateStrategy.RollingUpdate.PartitionMode = v1alpha1.PartitionCount
}

// zonedFour is an extended set of 4 rolling from web-r1 to web-r2 under
// Parallel with maxUnavailable 4 (so only the domain rules bind): web-0
// and web-2 on node-a in zone a, web-1 and web-3 on node-b in zone b, all
// Ready at web-r1.
func zonedFour(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkZoneNode("node-a", "a")).add(0, added, mkZoneNode("node-b", "b"))
	h.add(0, added, mkExt(4, append([]extOpt{extParallel, extMaxUnavailable(4), extRevisions("web-r1", "web-r2")}, opts...)...))
	for ord := int32(0); ord < 4; ord++ {
		node := []string{"node-a", "node-b"}[ord%2]
		h.add(0.1, added, mkPod(ord, "a", on(node))).add(0.5, modified, mkPod(ord, "a", on(node), ready))
	}
	return h
}

var topologyCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name: "taking a pod of the first zone is in order",
	history: func() *history {
		return zonedFour(extTopology(1)).add(20, modified, mkPod(2, "a", on("node-a"), ready, terminating))
	},
}, {
	name: "a second pod of a zone with a budget of one breaks domain-budget",
	history: func() *history {
		h := zonedFour(extTopology(1)).add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating))
		return h.add(20, modified, mkPod(0, "a", on("node-a"), ready, terminating))
	},
	want: []Rule{RuleDomainBudget},
}, {
	name: "with a budget of two it is allowed",
	history: func() *history {
		h := zonedFour(extTopology(2)).add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating))
		return h.add(20, modified, mkPod(0, "a", on("node-a"), ready, terminating))
	},
}, {
	name: "a pod not yet on a node counts against the zone",
	history: func() *history {
		h := zonedFour(extTopology(1)).add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating)).add(5.5, deleted, mkPod(2, "a", on("node-a"), ready, terminating))
		h.add(6, added, mkPod(2, "b", rev("web-r2")))
		return h.add(20, modified, mkPod(0, "a", on("node-a"), ready, terminating))
	},
	want: []Rule{RuleDomainBudget},
}, {
	name: "taking a pod of the second zone while the first is at the old revision breaks domain-order",
	history: func() *history {
		return zonedFour(extTopology(1)).add(20, modified, mkPod(3, "a", on("node-b"), ready, terminating))
	},
	want: []Rule{RuleDomainOrder},
}, {
	name: "the order the topology lists comes first",
	history: func() *history {
		return zonedFour(extTopology(1, "b")).add(20, modified, mkPod(3, "a", on("node-b"), ready, terminating))
	},
}, {
	name: "the second zone may go once the first is updated and Available",
	history: func() *history {
		h := zonedFour(extTopology(1))
		for _, ord := range []int32{0, 2} {
			h.add(1, modified, mkPod(ord, "a", on("node-a"), ready, terminating)).add(1.5, deleted, mkPod(ord, "a", on("node-a"), ready, terminating))
			h.add(2, added, mkPod(ord, "b", on("node-a"), rev("web-r2"))).add(3, modified, mkPod(ord, "b", on("node-a"), rev("web-r2"), ready))
		}
		return h.add(20, modified, mkPod(3, "a", on("node-b"), ready, terminating))
	},
}, {
	name: "a pod labelled for deletion in a zone with a pod down breaks domain-budget",
	history: func() *history {
		h := zonedFour(extTopology(1)).add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating))
		h.add(6, modified, mkPod(0, "a", on("node-a"), ready, requested))
		return h.add(20, modified, mkPod(0, "a", on("node-a"), ready, requested, terminating))
	},
	want: []Rule{RuleDomainBudget},
}, {
	name: "a pod labelled for deletion may go in any zone with room, out of the rollout's order",
	history: func() *history {
		h := zonedFour(extTopology(1)).add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating))
		h.add(6, modified, mkPod(3, "a", on("node-b"), ready, requested))
		return h.add(20, modified, mkPod(3, "a", on("node-b"), ready, requested, terminating))
	},
}, {
	name: "a pod not yet on a node does not hold a labelled pod's move",
	history: func() *history {
		h := zonedFour(extTopology(1)).add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating)).add(5.5, deleted, mkPod(2, "a", on("node-a"), ready, terminating))
		h.add(6, added, mkPod(2, "b", rev("web-r2")))
		h.add(6, modified, mkPod(3, "a", on("node-b"), ready, requested))
		return h.add(20, modified, mkPod(3, "a", on("node-b"), ready, requested, terminating))
	},
}, {
	name: "a set without topology is not judged by zone",
	history: func() *history {
		h := zonedFour().add(5, modified, mkPod(2, "a", on("node-a"), ready, terminating))
		return h.add(20, modified, mkPod(3, "a", on("node-b"), ready, terminating))
	},
}, {
	name: "a count partition of 2 lets two pods go",
	history: func() *history {
		h := zonedFour(extCount, extPartition(2))
		h.add(5, modified, mkPod(3, "a", on("node-b"), ready, terminating)).add(5.5, deleted, mkPod(3, "a", on("node-b"), ready, terminating))
		return h.add(20, modified, mkPod(0, "a", on("node-a"), ready, terminating))
	},
}, {
	name: "and a third breaks count-partition, not the ordinal partition rules",
	history: func() *history {
		h := zonedFour(extCount, extPartition(2))
		h.add(5, modified, mkPod(3, "a", on("node-b"), ready, terminating)).add(5.5, deleted, mkPod(3, "a", on("node-b"), ready, terminating))
		h.add(6, modified, mkPod(0, "a", on("node-a"), ready, terminating)).add(6.5, deleted, mkPod(0, "a", on("node-a"), ready, terminating))
		return h.add(20, modified, mkPod(1, "a", on("node-b"), ready, terminating))
	},
	want: []Rule{RuleCountPartition},
}, {
	name: "under an ordinal partition of 2 deleting web-0 breaks partition-delete",
	history: func() *history {
		return zonedFour(extPartition(2)).add(20, modified, mkPod(0, "a", on("node-a"), ready, terminating))
	},
	want: []Rule{RulePartitionDelete},
}}

func TestTopologyAndCountPartitionRules(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, tc := range topologyCases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.history()
			var got []Rule
			want := h.check()
			for _, v := range want {
				got = append(got, v.Rule)
				t.Log(v)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rules fired (-want +got):\n%s", diff)
			}
			for range 10 {
				shuffled := New(Options{})
				for _, j := range rng.Perm(len(h.events)) {
					shuffled.Observe(h.events[j])
				}
				if diff := cmp.Diff(want, shuffled.Violations()); diff != "" {
					t.Fatalf("shuffled arrival changed the verdict (-want +got):\n%s", diff)
				}
			}
		})
	}
}
