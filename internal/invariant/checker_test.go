package invariant

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// threeReady is an OrderedReady set of 3 whose pods were created in order
// and are Ready by second 3.
func threeReady(opts ...setOpt) *history {
	h := &history{}
	h.add(0, added, mkSet(3, opts...))
	h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
	h.add(1.1, added, mkPod(1, "a")).add(1.5, modified, mkPod(1, "a", ready))
	h.add(2.1, added, mkPod(2, "a")).add(2.5, modified, mkPod(2, "a", ready))
	return h
}

func TestRules(t *testing.T) {
	cases := []struct {
		name     string
		history  func() *history
		external []types.UID
		want     []Rule
	}{{
		name:    "an orderly scale-up to three breaks nothing",
		history: func() *history { return threeReady() },
	}, {
		name: "a second pod object for a name before the first is deleted breaks unique identity",
		history: func() *history {
			return threeReady().add(5, added, mkPod(1, "b", ready))
		},
		want: []Rule{RuleUniqueIdentity},
	}, {
		name: "a pod recreated after its predecessor object was deleted is fine",
		history: func() *history {
			h := threeReady()
			h.add(5, modified, mkPod(2, "a", ready, failed)).add(5.1, modified, mkPod(2, "a", failed, terminating)).add(5.2, deleted, mkPod(2, "a", failed, terminating))
			return h.add(5.3, added, mkPod(2, "b"))
		},
	}, {
		name: "a pod created beyond the range breaks the ordinal range",
		history: func() *history {
			return threeReady().add(5, added, mkPod(3, "a"))
		},
		want: []Rule{RuleOrdinalRange},
	}, {
		name: "a pod created just after a scale-down, by a controller that had not seen it yet, is tolerated",
		history: func() *history {
			h := threeReady().add(20, modified, mkSet(4))
			h.add(40, modified, mkSet(3))
			return h.add(41, added, mkPod(3, "a"))
		},
	}, {
		name: "a pod created long after the scale-down breaks the ordinal range",
		history: func() *history {
			h := threeReady().add(20, modified, mkSet(4))
			h.add(40, modified, mkSet(3))
			return h.add(55, added, mkPod(3, "a"))
		},
		want: []Rule{RuleOrdinalRange},
	}, {
		name: "OrderedReady: creating web-1 while web-0 is Pending breaks ordered creation",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(2)).add(0.1, added, mkPod(0, "a"))
			return h.add(0.2, added, mkPod(1, "a"))
		},
		want: []Rule{RuleOrderedCreate},
	}, {
		name: "Parallel: creating web-1 while web-0 is Pending is fine",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(2, parallel)).add(0.1, added, mkPod(0, "a"))
			return h.add(0.2, added, mkPod(1, "a"))
		},
	}, {
		name: "OrderedReady: web-0 failing a moment before web-1's create commits is a tolerated race",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(2)).add(0.1, added, mkPod(0, "a")).add(1, modified, mkPod(0, "a", ready))
			h.add(1.5, modified, mkPod(0, "a", failed))
			return h.add(1.6, added, mkPod(1, "a"))
		},
	}, {
		name: "OrderedReady: creating web-1 when web-0 has been Failed for longer than the window breaks ordered creation",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(2)).add(0.1, added, mkPod(0, "a")).add(1, modified, mkPod(0, "a", ready))
			h.add(1.5, modified, mkPod(0, "a", failed))
			return h.add(30, added, mkPod(1, "a"))
		},
		want: []Rule{RuleOrderedCreate},
	}, {
		name: "OrderedReady: minReadySeconds makes a Ready-but-not-Available predecessor block",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(2, func(s *appsv1StatefulSet) { s.Spec.MinReadySeconds = 30 }))
			h.add(0.1, added, mkPod(0, "a")).add(0.2, modified, mkPod(0, "a", ready))
			return h.add(5, added, mkPod(1, "a"))
		},
		want: []Rule{RuleOrderedCreate},
	}, {
		name: "OrderedReady: scale-down from the top, each after its successor is gone, is fine",
		history: func() *history {
			h := threeReady().add(10, modified, mkSet(1))
			h.add(10.1, modified, mkPod(2, "a", ready, terminating)).add(10.2, deleted, mkPod(2, "a", ready, terminating))
			return h.add(10.3, modified, mkPod(1, "a", ready, terminating)).add(10.4, deleted, mkPod(1, "a", ready, terminating))
		},
	}, {
		name: "OrderedReady: deleting web-1 while web-2 still exists breaks ordered scale-down",
		history: func() *history {
			h := threeReady().add(20, modified, mkSet(1))
			return h.add(20.1, modified, mkPod(1, "a", ready, terminating))
		},
		want: []Rule{RuleOrderedScaleDown},
	}, {
		name: "an external delete out of order is not the controller's doing",
		history: func() *history {
			h := threeReady().add(20, modified, mkSet(1))
			return h.add(20.1, modified, mkPod(1, "a", ready, terminating))
		},
		external: []types.UID{"web-1-a"},
	}, {
		name: "OrderedReady: updating web-1 while web-2 is unready breaks ordered update",
		history: func() *history {
			h := threeReady(revisions("web-r1", "web-r2"))
			h.add(3, modified, mkPod(2, "a", ready, terminating)).add(3.1, deleted, mkPod(2, "a", ready, terminating))
			h.add(3.2, added, mkPod(2, "b", rev("web-r2")))
			return h.add(20, modified, mkPod(1, "a", ready, terminating))
		},
		want: []Rule{RuleOrderedUpdate},
	}, {
		name: "OrderedReady: updating web-1 after web-2 came back Ready is fine",
		history: func() *history {
			h := threeReady(revisions("web-r1", "web-r2"))
			h.add(3, modified, mkPod(2, "a", ready, terminating)).add(3.1, deleted, mkPod(2, "a", ready, terminating))
			h.add(3.2, added, mkPod(2, "b", rev("web-r2"))).add(4, modified, mkPod(2, "b", rev("web-r2"), ready))
			return h.add(20, modified, mkPod(1, "a", ready, terminating))
		},
	}, {
		name: "OrderedReady: updating web-2 on the spec of three, seen just after a scale-up to four, is fine",
		history: func() *history {
			h := threeReady(revisions("web-r1", "web-r2"))
			h.add(10, modified, mkSet(4, revisions("web-r1", "web-r2")))
			return h.add(10.2, modified, mkPod(2, "a", ready, terminating))
		},
	}, {
		name: "OrderedReady: updating web-2 a window after a scale-up to four, before web-3 is healthy, breaks ordered update",
		history: func() *history {
			h := threeReady(revisions("web-r1", "web-r2"))
			h.add(10, modified, mkSet(4, revisions("web-r1", "web-r2"))).add(10.5, added, mkPod(3, "a", rev("web-r2")))
			return h.add(25, modified, mkPod(2, "a", ready, terminating))
		},
		want: []Rule{RuleOrderedUpdate},
	}, {
		name: "OrderedReady: updating web-1 while web-2 is unready breaks ordered update even just after a scale-up",
		history: func() *history {
			h := threeReady(revisions("web-r1", "web-r2"))
			h.add(3, modified, mkPod(2, "a", ready, terminating)).add(3.1, deleted, mkPod(2, "a", ready, terminating))
			h.add(3.2, added, mkPod(2, "b", rev("web-r2")))
			h.add(20, modified, mkSet(4, revisions("web-r1", "web-r2")))
			return h.add(20.2, modified, mkPod(1, "a", ready, terminating))
		},
		want: []Rule{RuleOrderedUpdate},
	}, {
		name: "OrderedReady with maxUnavailable 2 may delete two at once",
		history: func() *history {
			h := threeReady(maxUnavailable(2), revisions("web-r1", "web-r2"))
			return h.add(3, modified, mkPod(2, "a", ready, terminating)).add(3.1, modified, mkPod(1, "a", ready, terminating))
		},
	}, {
		name: "OnDelete: the controller deleting a healthy pod breaks OnDelete",
		history: func() *history {
			return threeReady(onDelete).add(5, modified, mkPod(1, "a", ready, terminating))
		},
		want: []Rule{RuleOnDeleteDelete},
	}, {
		name: "deleting a Failed pod is always allowed",
		history: func() *history {
			h := threeReady(onDelete).add(5, modified, mkPod(1, "a", failed))
			return h.add(5.1, modified, mkPod(1, "a", failed, terminating))
		},
	}, {
		name: "deleting a healthy pod below the partition breaks the partition",
		history: func() *history {
			return threeReady(partition(2)).add(5, modified, mkPod(0, "a", ready, terminating))
		},
		want: []Rule{RulePartitionDelete},
	}, {
		name: "recreating a pod below the partition at the update revision breaks the partition",
		history: func() *history {
			h := threeReady(partition(2), revisions("web-r1", "web-r2"))
			h.add(5, modified, mkPod(0, "a", failed)).add(5.1, deleted, mkPod(0, "a", failed))
			return h.add(5.2, added, mkPod(0, "b", rev("web-r2")))
		},
		want: []Rule{RulePartitionCreate},
	}, {
		name: "recreating a pod below the partition at the current revision is fine",
		history: func() *history {
			h := threeReady(partition(2), revisions("web-r1", "web-r2"))
			h.add(5, modified, mkPod(0, "a", failed)).add(5.1, deleted, mkPod(0, "a", failed))
			return h.add(5.2, added, mkPod(0, "b", rev("web-r1")))
		},
	}, {
		name: "the partition counts from the start ordinal: deleting a healthy pod below start+partition breaks it",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(3, startAt(5), partition(2)))
			for i, ord := range []int32{5, 6, 7} {
				h.add(float64(i)+0.1, added, mkPod(ord, "a")).add(float64(i)+0.5, modified, mkPod(ord, "a", ready))
			}
			return h.add(5, modified, mkPod(6, "a", ready, terminating))
		},
		want: []Rule{RulePartitionDelete},
	}, {
		name: "the partition counts from the start ordinal: recreating web-6 at the update revision breaks it",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(3, startAt(5), partition(2), revisions("web-r1", "web-r2")))
			for i, ord := range []int32{5, 6, 7} {
				h.add(float64(i)+0.1, added, mkPod(ord, "a")).add(float64(i)+0.5, modified, mkPod(ord, "a", ready))
			}
			h.add(5, modified, mkPod(6, "a", failed)).add(5.1, deleted, mkPod(6, "a", failed))
			return h.add(5.2, added, mkPod(6, "b", rev("web-r2")))
		},
		want: []Rule{RulePartitionCreate},
	}, {
		name: "the partition counts from the start ordinal: web-7 may be replaced",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkSet(3, startAt(5), partition(2), revisions("web-r1", "web-r2")))
			for i, ord := range []int32{5, 6, 7} {
				h.add(float64(i)+0.1, added, mkPod(ord, "a")).add(float64(i)+0.5, modified, mkPod(ord, "a", ready))
			}
			h.add(5, modified, mkPod(7, "a", ready, terminating)).add(5.1, deleted, mkPod(7, "a", ready, terminating))
			return h.add(5.2, added, mkPod(7, "b", rev("web-r2")))
		},
	}, {
		name: "deleting a claim under Retain breaks claim retention",
		history: func() *history {
			h := threeReady().add(3, added, mkClaim(2))
			return h.add(20, modified, mkClaim(2, claimDeleting))
		},
		want: []Rule{RuleClaimDeleted},
	}, {
		name: "a claim deleted by someone else is not the controller's doing",
		history: func() *history {
			h := threeReady().add(3, added, mkClaim(2))
			return h.add(20, modified, mkClaim(2, claimDeleting))
		},
		external: []types.UID{"claim-2"},
	}, {
		name: "whenScaled Delete: a condemned claim owned by its pod may go",
		history: func() *history {
			h := threeReady(whenScaledDelete).add(3, added, mkClaim(2)).add(10, modified, mkSet(2, whenScaledDelete))
			h.add(10.1, modified, mkClaim(2, ownedByPod(2)))
			return h.add(12, modified, mkClaim(2, ownedByPod(2), claimDeleting)).add(12.1, deleted, mkClaim(2, ownedByPod(2), claimDeleting))
		},
	}, {
		name: "a pod owner reference on an in-range claim breaks claim ownership",
		history: func() *history {
			h := threeReady(whenScaledDelete).add(3, added, mkClaim(1))
			return h.add(20, modified, mkClaim(1, ownedByPod(1)))
		},
		want: []Rule{RuleClaimOwner},
	}, {
		name: "a bound claim moving to another volume breaks the claim's volume",
		history: func() *history {
			return threeReady().add(3, added, mkClaim(1)).add(20, modified, mkClaim(1, func(c *corev1PVC) { c.Spec.VolumeName = "other" }))
		},
		want: []Rule{RuleClaimVolume},
	}, {
		name: "a claim growing from 1Gi to 2Gi keeps the rules",
		history: func() *history {
			return threeReady().add(3, added, mkClaim(1, capacity("1Gi"))).add(20, modified, mkClaim(1, capacity("2Gi")))
		},
	}, {
		name: "a claim whose capacity goes down breaks the no-shrink rule",
		history: func() *history {
			return threeReady().add(3, added, mkClaim(1, capacity("2Gi"))).add(20, modified, mkClaim(1, capacity("1Gi")))
		},
		want: []Rule{RuleClaimShrunk},
	}, {
		name: "collisionCount and observedGeneration going back break monotonic status",
		history: func() *history {
			h := &history{}
			return h.add(0, added, mkSet(1, status(2, 5))).add(1, modified, mkSet(1, status(1, 4)))
		},
		want: []Rule{RuleCollisionCount, RuleObservedGeneration},
	}, {
		name: "deleting the current revision breaks live revisions",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkRev("web-r1")).add(0.1, added, mkSet(1))
			return h.add(1, deleted, mkRev("web-r1"))
		},
		want: []Rule{RuleLiveRevision},
	}, {
		name: "deleting a revision a pod still carries breaks live revisions",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkRev("web-r0")).add(0.1, added, mkSet(1, revisions("web-r1", "web-r1")))
			h.add(0.2, added, mkPod(0, "a", rev("web-r0")))
			return h.add(1, deleted, mkRev("web-r0"))
		},
		want: []Rule{RuleLiveRevision},
	}, {
		name: "deleting an unused old revision is fine",
		history: func() *history {
			h := &history{}
			h.add(0, added, mkRev("web-r0")).add(0.1, added, mkSet(1, revisions("web-r1", "web-r1")))
			h.add(0.2, added, mkPod(0, "a"))
			return h.add(1, deleted, mkRev("web-r0"))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []Rule
			for _, v := range tc.history().check(tc.external...) {
				got = append(got, v.Rule)
				t.Log(v)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rules fired (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArrivalOrderDoesNotMatter(t *testing.T) {
	h := threeReady().add(20, modified, mkSet(1))
	h.add(20.1, modified, mkPod(1, "a", ready, terminating))
	want := h.check()
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		c := New(Options{})
		for _, j := range rng.Perm(len(h.events)) {
			c.Observe(h.events[j])
		}
		if diff := cmp.Diff(want, c.Violations()); diff != "" {
			t.Fatalf("shuffled arrival changed the verdict (-want +got):\n%s", diff)
		}
	}
}

func TestRelistedDeletesAreNotJudged(t *testing.T) {
	h := threeReady().add(20, modified, mkSet(1))
	h.add(20.1, modified, mkPod(1, "a", ready, terminating))
	h.events[len(h.events)-1].Relisted = true
	if v := h.check(); len(v) != 0 {
		t.Errorf("a relisted deletion was judged: %v", v)
	}
}
