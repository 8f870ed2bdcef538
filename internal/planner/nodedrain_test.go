package planner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// on places a pod on node.
func on(node string) testgen.PodOption {
	return func(p *corev1.Pod) { p.Spec.NodeName = node }
}

// drained gives an extended set nodeDrainPolicy Move and its nodes: n0
// and n1 Ready, cordoned Ready, notready cordoned and NotReady.
func drained(e *planner.Extended) {
	e.MoveOffDrainedNodes = true
	e.NodeFailure = &planner.NodeFailure{}
	observedOf(e).Nodes = &planner.NodeFacts{Nodes: map[string]planner.NodeState{
		"n0":       {Ready: corev1.ConditionTrue},
		"n1":       {Ready: corev1.ConditionTrue},
		"cordoned": {Ready: corev1.ConditionTrue, Drain: "cordoned"},
		"notready": {Ready: corev1.ConditionFalse, Drain: "cordoned"},
	}, ClaimHosts: map[string]string{}}
}

func TestNodeDrainMovesPodsOffDrainedNodes(t *testing.T) {
	three := steady(testgen.Replicas(3))
	wide := steady(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	par := steady(testgen.Replicas(3), testgen.Parallel())
	upd := rollout(testgen.Replicas(3))
	claims := steady(testgen.Replicas(3), testgen.ClaimTemplates("data"))
	ignore := func(e *planner.Extended) { e.MoveOffDrainedNodes = false }
	local := func(e *planner.Extended) { observedOf(e).Nodes.ClaimHosts["data-web-1"] = "cordoned" }
	for _, tc := range []struct {
		name  string
		f     fixture
		e     *planner.Extended
		pods  []*corev1.Pod
		steps []string
		waits []string
	}{{
		name:  "a pod on a cordoned node is deleted so that it starts elsewhere",
		f:     three,
		e:     extended(drained),
		pods:  []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("cordoned")), three.pod(2, on("n1"))},
		steps: []string{"node drain: DeletePod web-1"},
	}, {
		name: "nodeDrainPolicy Ignore leaves it to the drain",
		f:    three,
		e:    extended(drained, ignore),
		pods: []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("cordoned")), three.pod(2, on("n1"))},
	}, {
		name: "a paused set moves nothing",
		f:    three,
		e:    extended(drained, func(e *planner.Extended) { e.Paused = true }),
		pods: []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("cordoned")), three.pod(2, on("n1"))},
	}, {
		name: "apps/v1 sets stay upstream's",
		f:    three,
		pods: []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("cordoned")), three.pod(2, on("n1"))},
	}, {
		name:  "two pods on the node: the highest goes first within maxUnavailable 1, the other waits",
		f:     three,
		e:     extended(drained),
		pods:  []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("cordoned")), three.pod(2, on("cordoned"))},
		steps: []string{"node drain: DeletePod web-2"},
		waits: []string{"web-1: Available"},
	}, {
		name:  "a pod the rollout has down uses the budget: the move waits",
		f:     par,
		e:     extended(drained),
		pods:  []*corev1.Pod{par.pod(0, on("n0"), testgen.NotReady(now)), par.pod(1, on("cordoned")), par.pod(2, on("n1"))},
		waits: []string{"web-1: Available"},
	}, {
		name:  "the rolling update gets what the move leaves: nothing with maxUnavailable 1",
		f:     upd,
		e:     extended(drained),
		pods:  []*corev1.Pod{upd.pod(0, on("n0")), upd.pod(1, on("cordoned")), upd.pod(2, on("n1"))},
		steps: []string{"node drain: DeletePod web-1"},
	}, {
		name:  "a node that is not Ready is the node-failure pass's, which names the pod",
		f:     three,
		e:     extended(drained),
		pods:  []*corev1.Pod{three.pod(0, on("n0")), three.pod(1, on("notready")), three.pod(2, on("n1"))},
		waits: []string{"web-1: Available"},
	}, {
		name:  "a pod with a claim on a local volume of the node stays and waits",
		f:     claims,
		e:     extended(drained, local),
		pods:  []*corev1.Pod{claims.pod(0, on("n0")), claims.pod(1, on("cordoned")), claims.pod(2, on("n1"))},
		waits: []string{"web-1: Available"},
	}, {
		name:  "an exclusive role's holder starts its switchover instead of being deleted",
		f:     three,
		e:     database(drained, switchover(false)),
		pods:  []*corev1.Pod{three.pod(0, follower, on("n0")), three.pod(1, follower, on("n1")), three.pod(2, leader, on("cordoned"))},
		steps: []string{"node drain: StartHook web-2"},
	}, {
		name:  "the leader goes after the other members, whatever its ordinal",
		f:     wide,
		e:     database(drained, switchover(false)),
		pods:  []*corev1.Pod{wide.pod(0, follower, on("cordoned")), wide.pod(1, follower, on("n1")), wide.pod(2, leader, on("cordoned"))},
		steps: []string{"node drain: DeletePod web-0"},
		waits: []string{"web-2: Available"}, // the quorum: one member at a time
	}, {
		name:  "the quorum holds a member although maxUnavailable would let it go",
		f:     wide,
		e:     database(drained),
		pods:  []*corev1.Pod{wide.pod(0, follower, on("n0"), testgen.NotReady(now)), wide.pod(1, follower, on("cordoned")), wide.pod(2, leader, on("n1"))},
		waits: []string{"web-1: Available"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.ext(tc.e, tc.pods...)
			if diff := cmp.Diff(tc.steps, tc.f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.waits, waitLines(plan)); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeDrainSaysWhichPodMovesOffWhichNode(t *testing.T) {
	f := steady(testgen.Replicas(3))
	plan := f.ext(extended(drained), f.pod(0, on("notready")), f.pod(1, on("cordoned")), f.pod(2, on("cordoned")))
	var moving []string
	for _, b := range plan.Extended.Status.BlockedBy {
		if b.Reason == planner.ReasonNodeDrain {
			moving = append(moving, b.Message)
		}
	}
	want := []string{"moving web-1 off cordoned (cordoned)", "moving web-2 off cordoned (cordoned)"}
	if diff := cmp.Diff(want, moving); diff != "" {
		t.Errorf("blockedBy NodeDrain (-want +got):\n%s", diff)
	}
	a := plan.Steps[0].Actions[0]
	if a.EventReason != planner.EventMovingOffNode || a.EventMessage != "moving web-2 off cordoned (cordoned)" ||
		!strings.HasPrefix(a.Reason, "moving web-2 off cordoned (cordoned)") {
		t.Errorf("action %+v, want the move's event and reason", a)
	}
	if w := policies(plan); !strings.Contains(w, "moving web-1 off cordoned (cordoned) waits: maxUnavailable 1 is used up") {
		t.Errorf("waits do not explain the move:\n%s", w)
	}
}

func TestNodeDrainKeepsAMovingPodsPreDeleteRecord(t *testing.T) {
	f := steady(testgen.Replicas(3))
	pre := func(e *planner.Extended) {
		e.PreDelete = &planner.Hook{Name: "preDelete", Label: v1alpha1.PreDeleteHookLabel, Timeout: 5 * 60e9}
	}
	// web-1 waits for the budget web-2's move holds: its Done preDelete
	// record must stay, or the hook would run again.
	done := hookAt(&planner.Hook{Label: v1alpha1.PreDeleteHookLabel}, v1alpha1.HookDone, now.Add(-1e9), f.upd.Name, 0, now)
	plan := f.ext(extended(drained, pre), f.pod(0, on("n0")), f.pod(1, on("cordoned"), done), f.pod(2, on("cordoned"), testgen.NotReady(now)))
	for _, line := range f.summary(plan) {
		if strings.Contains(line, "web-1") && !strings.Contains(line, "DeletePod") {
			t.Errorf("plan %v touches web-1's hook record while it waits", f.summary(plan))
		}
	}
}
