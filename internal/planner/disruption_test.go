package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// respecting is an extended set that evicts, with the given refusals.
func respecting(refused map[string]planner.EvictionRefusal, opts ...func(*planner.Extended)) *planner.Extended {
	return extended(append([]func(*planner.Extended){func(e *planner.Extended) {
		e.Budgets = planner.DisruptionBudgets{Respect: true}
		observedOf(e).Refused = refused
	}}, opts...)...)
}

// removals renders the plan's pod removals as "DeletePod web-2" or
// "EvictPod web-2".
func removals(plan planner.Plan) []string {
	var out []string
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			switch {
			case a.Kind == planner.DeletePod && a.Evict:
				out = append(out, "EvictPod "+a.Pod.Name)
			case a.Kind == planner.DeletePod:
				out = append(out, "DeletePod "+a.Pod.Name)
			}
		}
	}
	return out
}

func TestDisruptionBudgets(t *testing.T) {
	upd := rollout(testgen.Replicas(3))
	par := rollout(testgen.Replicas(4), testgen.Parallel(), testgen.MaxUnavailable(2))
	three := steady(testgen.Replicas(3))
	refusedWeb2 := map[string]planner.EvictionRefusal{"web-2": {UID: "uid-web-2", Message: "The disruption budget pdb needs 3 healthy pods and has 3 currently",
		Since: now.Add(-time.Minute), RetryAt: now.Add(4 * time.Second)}}
	for _, tc := range []struct {
		name     string
		f        fixture
		e        *planner.Extended
		pods     []*corev1.Pod
		removals []string
		waits    []string
		blocked  []string
		requeue  time.Duration
	}{{
		name:     "a rolling update evicts the pod it replaces",
		f:        upd,
		e:        respecting(nil),
		pods:     upd.pods(0, 1, 2),
		removals: []string{"EvictPod web-2"},
	}, {
		name:     "without respectDisruptionBudgets the pod is deleted",
		f:        upd,
		e:        extended(),
		pods:     upd.pods(0, 1, 2),
		removals: []string{"DeletePod web-2"},
	}, {
		name:     "a refused pod waits until its retry time and keeps the budget, so no other pod is taken",
		f:        upd,
		e:        respecting(refusedWeb2),
		pods:     upd.pods(0, 1, 2),
		removals: nil,
		waits:    []string{"web-2: Available"},
		blocked:  []string{"web-2 DisruptionBudget: The disruption budget pdb needs 3 healthy pods and has 3 currently"},
		requeue:  4 * time.Second,
	}, {
		name:     "under Parallel maxUnavailable 2 the refused pod keeps its slot and the next is evicted",
		f:        par,
		e:        respecting(map[string]planner.EvictionRefusal{"web-3": {UID: "uid-web-3", Message: "refused", RetryAt: now.Add(time.Second)}}),
		pods:     par.pods(0, 1, 2, 3),
		removals: []string{"EvictPod web-2"},
		waits:    []string{"web-3: Available"},
		blocked:  []string{"web-3 DisruptionBudget: refused"},
		requeue:  time.Second,
	}, {
		name:     "once the retry time has come the pod is evicted again",
		f:        upd,
		e:        respecting(map[string]planner.EvictionRefusal{"web-2": {UID: "uid-web-2", Message: "refused", RetryAt: now}}),
		pods:     upd.pods(0, 1, 2),
		removals: []string{"EvictPod web-2"},
	}, {
		name:     "a refusal of an earlier pod of the same name does not hold",
		f:        upd,
		e:        respecting(map[string]planner.EvictionRefusal{"web-2": {UID: "uid-gone", Message: "refused", RetryAt: now.Add(time.Minute)}}),
		pods:     upd.pods(0, 1, 2),
		removals: []string{"EvictPod web-2"},
	}, {
		name:     "a refusal read back from status (no retry time) holds the pod",
		f:        upd,
		e:        respecting(map[string]planner.EvictionRefusal{"web-2": {Message: "refused", Since: now.Add(-time.Minute)}}),
		pods:     upd.pods(0, 1, 2),
		removals: nil,
		waits:    []string{"web-2: Available"},
		blocked:  []string{"web-2 DisruptionBudget: refused"},
	}, {
		name:     "self-healing evicts the broken old pod",
		f:        upd,
		e:        respecting(nil),
		pods:     with(upd.pods(0, 1), upd.pod(2, testgen.NotReady(now))),
		removals: []string{"EvictPod web-2"},
	}, {
		name:     "a plain scale-down deletes, as apps/v1 does",
		f:        three,
		e:        respecting(nil),
		pods:     three.pods(0, 1, 2, 3),
		removals: []string{"DeletePod web-3"},
	}, {
		name: "the pod of a reserved ordinal is evicted: scale-in of a chosen pod",
		f:    three,
		e: respecting(nil, func(e *planner.Extended) {
			e.Reserved = []planner.OrdinalRange{{Low: 1, High: 1}}
		}),
		pods:     three.pods(0, 1, 2, 3),
		removals: []string{"EvictPod web-1"},
	}, {
		name:     "a pod labelled for deletion is evicted",
		f:        three,
		e:        respecting(nil),
		pods:     with(three.pods(0, 2), three.pod(1, requested)),
		removals: []string{"EvictPod web-1"},
	}, {
		name:     "a Failed pod is deleted, not evicted",
		f:        three,
		e:        respecting(nil),
		pods:     with(three.pods(0, 2), three.pod(1, testgen.Failed())),
		removals: []string{"DeletePod web-1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.ext(tc.e, tc.pods...)
			if diff := cmp.Diff(tc.removals, removals(plan)); diff != "" {
				t.Errorf("removals (-want +got):\n%s", diff)
			}
			var waits []string
			for _, w := range plan.Waits {
				if strings.Contains(w.Policy, "respectDisruptionBudgets") {
					waits = append(waits, w.Pod+": "+w.State)
				}
			}
			if diff := cmp.Diff(tc.waits, waits); diff != "" {
				t.Errorf("budget waits (-want +got):\n%s", diff)
			}
			var blocked []string
			for _, b := range plan.Extended.Status.BlockedBy {
				if b.Reason != planner.ReasonDisruptionBudget {
					continue
				}
				blocked = append(blocked, b.Pod+" "+b.Reason+": "+b.Message)
			}
			if diff := cmp.Diff(tc.blocked, blocked); diff != "" {
				t.Errorf("blockedBy (-want +got):\n%s", diff)
			}
			if tc.requeue != 0 && plan.RequeueAfter != tc.requeue {
				t.Errorf("RequeueAfter %s, want %s", plan.RequeueAfter, tc.requeue)
			}
		})
	}
}

// An apps/v1 set never evicts, whatever it is given: it has no
// Extended, and the field is the extended kind's.
func TestDisruptionBudgetsLeaveAppsV1Alone(t *testing.T) {
	upd := rollout(testgen.Replicas(3))
	plan := compute(upd.input(upd.pods(0, 1, 2)))
	if diff := cmp.Diff([]string{"DeletePod web-2"}, removals(plan)); diff != "" {
		t.Errorf("removals (-want +got):\n%s", diff)
	}
}
