package invariant

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// brokenBottom is an OrderedReady set of 3 whose web-0 runs old revision
// web-r1 and never became Ready, so web-1 and web-2 were never created; the
// template was fixed (update revision web-r2) and web-0 is deleted at 20s.
func brokenBottom(set func() *history) *history {
	h := set()
	h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", notReady))
	return h.add(20, modified, mkPod(0, "a", notReady, terminating))
}

// parallelTwoOfThree is a Parallel extended set of 3 rolling from web-r1 to
// web-r2 whose web-0 never existed; web-2, Ready since 1s, is deleted at
// 20s.
func parallelTwoOfThree(opts ...extOpt) *history {
	h := &history{}
	h.add(0, added, mkExt(3, append([]extOpt{extParallel, extRevisions("web-r1", "web-r2")}, opts...)...))
	h.add(0.5, added, mkPod(1, "a")).add(1, modified, mkPod(1, "a", readySince(1)))
	h.add(0.6, added, mkPod(2, "a")).add(1.1, modified, mkPod(2, "a", readySince(1)))
	return h.add(20, modified, mkPod(2, "a", readySince(1), terminating))
}

// rollbackHistory is an extended set created at image 0.1 (web-r1) and
// updated to 0.2 (web-r2), which the controller rolls back to web-r1 at
// 5s, then, with no change by the user, back to web-r2 at 9s. users says
// whether the user's writes are recorded.
func rollbackHistory(users bool) *history {
	h := &history{}
	write := h.add
	if users {
		write = h.user
	}
	write(0, added, mkExt(3, extImage("1")))
	write(1, modified, mkExt(3, gen(2), unobserved, extImage("2")))
	h.add(5, modified, mkExt(3, gen(3), unobserved, extImage("1")))
	h.add(5.1, modified, mkExt(3, gen(3), unobserved, extImage("1"), rolledBack("web-r2", "web-r1", 5)))
	h.add(6, modified, mkExt(3, gen(3), extImage("1"), rolledBack("web-r2", "web-r1", 5)))
	h.add(9, modified, mkExt(3, gen(4), unobserved, extImage("2"), rolledBack("web-r2", "web-r1", 5)))
	return h.add(9.1, modified, mkExt(3, gen(4), unobserved, extImage("2"), rolledBack("web-r1", "web-r2", 9)))
}

var extendedCases = []struct {
	name    string
	history func() *history
	want    []Rule
}{{
	name:    "an orderly extended scale-up to three breaks nothing",
	history: func() *history { return threeReadyExt() },
}, {
	name: "a paused set deleting a Ready pod of its range breaks paused-delete",
	history: func() *history {
		return threeReadyExt(extPaused, extRevisions("web-r1", "web-r2")).add(5, modified, mkPod(2, "a", ready, terminating))
	},
	want: []Rule{RulePausedDelete},
}, {
	name: "a paused set may delete a Failed pod",
	history: func() *history {
		h := threeReadyExt(extPaused, extRevisions("web-r1", "web-r2")).add(5, modified, mkPod(2, "a", failed))
		return h.add(5.1, modified, mkPod(2, "a", failed, terminating))
	},
}, {
	name: "a paused set may scale down",
	history: func() *history {
		h := threeReadyExt(extPaused).add(10, modified, mkExt(2, extPaused, gen(2)))
		return h.add(10.1, modified, mkPod(2, "a", ready, terminating))
	},
}, {
	name: "a paused set recreating a missing pod at the update revision breaks the partition",
	history: func() *history {
		h := threeReadyExt(extPaused, extRevisions("web-r1", "web-r2"))
		h.add(5, modified, mkPod(2, "a", failed)).add(5.1, deleted, mkPod(2, "a", failed))
		return h.add(5.2, added, mkPod(2, "b", rev("web-r2")))
	},
	want: []Rule{RulePartitionCreate},
}, {
	name: "a paused set recreating a missing pod at the current revision is fine",
	history: func() *history {
		h := threeReadyExt(extPaused, extRevisions("web-r1", "web-r2"))
		h.add(5, modified, mkPod(2, "a", failed)).add(5.1, deleted, mkPod(2, "a", failed))
		return h.add(5.2, added, mkPod(2, "b", rev("web-r1")))
	},
}, {
	name: "deleting an unready pod at the update revision breaks updated-delete",
	history: func() *history {
		h := threeReadyExt().add(20, modified, mkPod(1, "a", notReady))
		return h.add(25, modified, mkPod(1, "a", notReady, terminating))
	},
	want: []Rule{RuleUpdatedDelete},
}, {
	name: "the taint-eviction controller deleting a pod recreated under the evicted one's name is not the controller's",
	history: func() *history {
		h := threeReadyExt().add(20, modified, mkPod(1, "a", notReady, deletedBy("DeletionByTaintManager")))
		return h.add(25, modified, mkPod(1, "a", notReady, deletedBy("DeletionByTaintManager"), terminating))
	},
}, {
	name: "nor is the pod garbage collector's",
	history: func() *history {
		h := threeReadyExt().add(20, modified, mkPod(1, "a", notReady, deletedBy("DeletionByPodGC")))
		return h.add(25, modified, mkPod(1, "a", notReady, deletedBy("DeletionByPodGC"), terminating))
	},
}, {
	name: "an eviction through the Eviction API is still judged: updated-delete",
	history: func() *history {
		h := threeReadyExt().add(20, modified, mkPod(1, "a", notReady, deletedBy("EvictionByEvictionAPI")))
		return h.add(25, modified, mkPod(1, "a", notReady, deletedBy("EvictionByEvictionAPI"), terminating))
	},
	want: []Rule{RuleUpdatedDelete},
}, {
	name: "a deletion while a template change is not yet observed has no update revision to judge",
	history: func() *history {
		h := threeReadyExt().add(20, modified, mkExt(3, gen(2), unobserved))
		h.add(20.5, modified, mkPod(1, "a", notReady))
		return h.add(21, modified, mkPod(1, "a", notReady, terminating))
	},
}, {
	name:    "deleting an Available pod while another ordinal was missing all along breaks available-delete",
	history: func() *history { return parallelTwoOfThree() },
	want:    []Rule{RuleAvailableDelete},
}, {
	name:    "with maxUnavailable 2 the same deletion is within the budget",
	history: func() *history { return parallelTwoOfThree(extMaxUnavailable(2)) },
}, {
	name: "a pod Ready but not yet Available costs no budget",
	history: func() *history {
		h := &history{}
		h.add(0, added, mkExt(3, extParallel, extMinReady(30), extRevisions("web-r1", "web-r2")))
		h.add(0.5, added, mkPod(1, "a")).add(1, modified, mkPod(1, "a", readySince(1)))
		h.add(0.6, added, mkPod(2, "a")).add(5, modified, mkPod(2, "a", readySince(5)))
		return h.add(20, modified, mkPod(2, "a", readySince(5), terminating))
	},
}, {
	name: "self-healing replaces a never-Ready old pod although the pods after it never existed",
	history: func() *history {
		return brokenBottom(func() *history { return (&history{}).add(0, added, mkExt(3, extRevisions("web-r1", "web-r2"))) })
	},
}, {
	name: "with self-healing disabled the same deletion breaks ordered update",
	history: func() *history {
		return brokenBottom(func() *history {
			return (&history{}).add(0, added, mkExt(3, extNoHealing, extRevisions("web-r1", "web-r2")))
		})
	},
	want: []Rule{RuleOrderedUpdate},
}, {
	name: "an apps/v1 set deleting the same pod breaks ordered update",
	history: func() *history {
		return brokenBottom(func() *history { return (&history{}).add(0, added, mkSet(3, revisions("web-r1", "web-r2"))) })
	},
	want: []Rule{RuleOrderedUpdate},
}, {
	name: "self-healing web-1 while web-0 is unhealthy breaks ordered update",
	history: func() *history {
		h := (&history{}).add(0, added, mkExt(3, extRevisions("web-r1", "web-r2")))
		h.add(0.1, added, mkPod(0, "a")).add(0.5, modified, mkPod(0, "a", ready))
		h.add(1, added, mkPod(1, "a")).add(1.5, modified, mkPod(1, "a", notReady))
		h.add(2, modified, mkPod(0, "a", rev("web-r2"), notReady))
		return h.add(20, modified, mkPod(1, "a", notReady, terminating))
	},
	want: []Rule{RuleOrderedUpdate},
}, {
	name: "Recreate: creating a pod of the new revision while an old one still exists breaks recreate",
	history: func() *history {
		h := threeReadyExt(extRecreate, extParallel, extRevisions("web-r1", "web-r2"))
		h.add(5, modified, mkPod(2, "a", ready, terminating)).add(5.1, deleted, mkPod(2, "a", ready, terminating))
		h.add(5.2, modified, mkPod(0, "a", ready, terminating))
		return h.add(5.3, added, mkPod(2, "b", rev("web-r2")))
	},
	want: []Rule{RuleRecreate},
}, {
	name: "Recreate of an apps/v1 set: creating a pod of the new revision while an old one still exists breaks recreate",
	history: func() *history {
		h := (&history{}).add(0, added, mkSet(3, parallel, appsRecreate, revisions("web-r1", "web-r2")))
		for ord := int32(0); ord < 3; ord++ {
			h.add(0.1, added, mkPod(ord, "a")).add(0.5, modified, mkPod(ord, "a", ready))
		}
		h.add(5, modified, mkPod(2, "a", ready, terminating)).add(5.1, deleted, mkPod(2, "a", ready, terminating))
		return h.add(5.3, added, mkPod(2, "b", rev("web-r2")))
	},
	want: []Rule{RuleRecreate},
}, {
	name: "Recreate: creating pods of the new revision once every old one is gone is fine",
	history: func() *history {
		h := threeReadyExt(extRecreate, extParallel, extRevisions("web-r1", "web-r2"))
		for ord := int32(0); ord < 3; ord++ {
			h.add(5, modified, mkPod(ord, "a", ready, terminating)).add(5.1, deleted, mkPod(ord, "a", ready, terminating))
		}
		return h.add(6, added, mkPod(0, "b", rev("web-r2"))).add(6.1, added, mkPod(2, "b", rev("web-r2")))
	},
}, {
	name: "Recreate deletes condemned old pods at once, out of scale-down order",
	history: func() *history {
		h := threeReadyExt(extRecreate, extRevisions("web-r1", "web-r2"))
		h.add(25, modified, mkExt(1, extRecreate, gen(2), extRevisions("web-r1", "web-r2")))
		return h.add(25.1, modified, mkPod(1, "a", ready, terminating)).add(25.2, modified, mkPod(2, "a", ready, terminating))
	},
}, {
	// Chaos seeds 7701 and 8137: the controller makes the update revision
	// of a spec it sees for the first time, deletes every old pod, and only
	// then writes the status that names the revision.
	name: "Recreate deletes condemned old pods at once before its status names the new revision",
	history: func() *history {
		h := threeReadyExt(extRecreate)
		h.add(25, modified, mkExt(0, extRecreate, gen(2), unobserved, extImage("2")))
		h.add(26, modified, mkPod(1, "a", ready, terminating)).add(26.1, modified, mkPod(0, "a", ready, terminating))
		h.add(26.2, modified, mkPod(2, "a", ready, terminating))
		return h.add(26.3, modified, mkExt(0, extRecreate, gen(2), extImage("2"), extRevisions("web-r1", "web-r2")))
	},
}, {
	name: "Recreate scaling down out of order breaks ordered scale-down when the status after it names the pods' revision",
	history: func() *history {
		h := threeReadyExt(extRecreate)
		h.add(25, modified, mkExt(1, extRecreate, gen(2), unobserved))
		h.add(26, modified, mkPod(1, "a", ready, terminating))
		return h.add(26.3, modified, mkExt(1, extRecreate, gen(2)))
	},
	want: []Rule{RuleOrderedScaleDown},
}, {
	name: "Recreate scaling down out of order breaks ordered scale-down when no status follows",
	history: func() *history {
		h := threeReadyExt(extRecreate)
		h.add(25, modified, mkExt(1, extRecreate, gen(2), unobserved, extImage("2")))
		return h.add(26, modified, mkPod(1, "a", ready, terminating))
	},
	want: []Rule{RuleOrderedScaleDown},
}, {
	name: "Recreate scaling down out of order breaks ordered scale-down when only a later spec's status names another revision",
	history: func() *history {
		h := threeReadyExt(extRecreate)
		h.add(25, modified, mkExt(1, extRecreate, gen(2), unobserved))
		h.add(26, modified, mkPod(1, "a", ready, terminating))
		h.add(26.1, modified, mkExt(1, extRecreate, gen(3), unobserved, extImage("2")))
		return h.add(26.3, modified, mkExt(1, extRecreate, gen(3), extImage("2"), extRevisions("web-r1", "web-r2")))
	},
	want: []Rule{RuleOrderedScaleDown},
}, {
	name: "Recreate scaling down out of order breaks ordered scale-down when the naming status comes after the window",
	history: func() *history {
		h := threeReadyExt(extRecreate)
		h.add(25, modified, mkExt(1, extRecreate, gen(2), unobserved, extImage("2")))
		h.add(26, modified, mkPod(1, "a", ready, terminating))
		return h.add(50, modified, mkExt(1, extRecreate, gen(2), extImage("2"), extRevisions("web-r1", "web-r2")))
	},
	want: []Rule{RuleOrderedScaleDown},
}, {
	name:    "rolling back twice with no user change breaks rollback-once and rollback-loop",
	history: func() *history { return rollbackHistory(true) },
	want:    []Rule{RuleRollbackOnce, RuleRollbackLoop},
}, {
	name:    "without the user's writes recorded the rollback rules are not judged",
	history: func() *history { return rollbackHistory(false) },
}, {
	name: "a rollback back to a revision the user applied again is fine",
	history: func() *history {
		h := &history{}
		h.user(0, added, mkExt(3, extImage("1")))
		h.user(1, modified, mkExt(3, gen(2), unobserved, extImage("2")))
		h.add(5, modified, mkExt(3, gen(3), unobserved, extImage("1")))
		h.add(5.1, modified, mkExt(3, gen(3), unobserved, extImage("1"), rolledBack("web-r2", "web-r1", 5)))
		h.user(7, modified, mkExt(3, gen(4), unobserved, extImage("2"), rolledBack("web-r2", "web-r1", 5)))
		h.user(8, modified, mkExt(3, gen(5), unobserved, extImage("4"), rolledBack("web-r2", "web-r1", 5)))
		h.add(9, modified, mkExt(3, gen(6), unobserved, extImage("2"), rolledBack("web-r2", "web-r1", 5)))
		return h.add(9.1, modified, mkExt(3, gen(6), unobserved, extImage("2"), rolledBack("web-r4", "web-r2", 9)))
	},
}}

func TestExtendedRules(t *testing.T) {
	for _, tc := range append(append(append(append(append(slices.Clone(extendedCases), priorityCases...), storageCases...), inPlaceCases...), append(slices.Clone(hookCases), memberCases...)...), append(append(append(slices.Clone(roleCases), probeCases...), holdCases...), append(slices.Clone(configCases), evictionCases...)...)...) {
		t.Run(tc.name, func(t *testing.T) {
			var got []Rule
			for _, v := range tc.history().check() {
				got = append(got, v.Rule)
				t.Log(v)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rules fired (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtendedVerdictsDoNotDependOnArrivalOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, tc := range append(append(append(append(append(slices.Clone(extendedCases), priorityCases...), storageCases...), inPlaceCases...), append(slices.Clone(hookCases), memberCases...)...), append(append(append(slices.Clone(roleCases), probeCases...), holdCases...), append(slices.Clone(configCases), evictionCases...)...)...) {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.history()
			want := h.check()
			for i := 0; i < 10; i++ {
				c := h.checker()
				shuffled := New(Options{})
				shuffled.userWrites = c.userWrites
				for _, uid := range h.externals {
					shuffled.ExternalDelete(uid)
				}
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

// appsRecreate gives an apps/v1 set upstream 1.37's Recreate strategy.
func appsRecreate(s *appsv1.StatefulSet) {
	s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RecreateStatefulSetStrategyType}
}

// deletedBy marks the pod DisruptionTarget with reason, as the controller
// that deletes it does first.
func deletedBy(reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: reason})
	}
}
