package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// memberHook is a member hook (postCreate or postUpdate) with a handshake.
func memberHook(name string, proceed bool) *planner.Hook {
	label := v1alpha1.PostCreateHookLabel
	if name == "postUpdate" {
		label = v1alpha1.PostUpdateHookLabel
	}
	return &planner.Hook{Name: name, Label: label, Member: true, Timeout: 5 * time.Minute, Proceed: proceed}
}

func postCreate(h *planner.Hook) func(*planner.Extended) {
	return func(e *planner.Extended) { e.PostCreate = h }
}

func postUpdate(h *planner.Hook) func(*planner.Extended) {
	return func(e *planner.Extended) { e.PostUpdate = h }
}

// joining is a pod the controller created with its readiness gate, whose
// containers are Ready (containers true) or not, and that is not Ready:
// the gate's condition is not True.
func joining(containers bool) testgen.PodOption {
	return func(pod *corev1.Pod) {
		testgen.NotReady(now)(pod)
		gate("", now)(pod)
		status := corev1.ConditionFalse
		if containers {
			status = corev1.ConditionTrue
		}
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.ContainersReady, Status: status})
	}
}

func TestAPostCreateHookHoldsTheNextPod(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	halt, proceed := memberHook("postCreate", false), memberHook("postCreate", true)
	upd := f.upd.Name
	started := func(h *planner.Hook, state string, since time.Time) testgen.PodOption {
		return hookAt(h, state, since, upd, 0, time.Time{})
	}
	runPriority(t, []priorityScenario{{
		name:  "a pod recreated for the update has the gate: created, its hook waits for its containers",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  f.pods(0, 1),
		steps: []string{"replicas: CreatePod web-2 at update"},
	}, {
		name:  "containers not Ready: nothing starts, and web-1 is left alone",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(false))),
		steps: nil,
	}, {
		name:  "containers Ready: the hook starts, and web-1 is left alone",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true))),
		steps: []string{"in place: StartHook web-2"},
	}, {
		name:  "Pending: nothing happens",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true), started(halt, v1alpha1.HookPending, now.Add(-time.Minute)))),
		steps: nil,
	}, {
		name:  "Done: the gate goes True, and web-1 waits until web-2 is Ready",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true), started(halt, v1alpha1.HookDone, now.Add(-time.Minute)))),
		steps: []string{"in place: PatchPodStatus web-2"},
	}, {
		name:  "Done, gate True and Ready: the rolling update goes on to web-1",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, gate(corev1.ConditionTrue, now), started(halt, v1alpha1.HookDone, now.Add(-time.Minute)))),
		steps: []string{"rolling update: DeletePod web-1"},
	}, {
		name:  "timed out under Halt: the pod stays out of service",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true), started(halt, v1alpha1.HookPending, now.Add(-6*time.Minute)))),
		steps: nil,
	}, {
		name:  "Failed under Proceed: the gate goes True",
		f:     f,
		e:     extended(postCreate(proceed)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true), started(proceed, v1alpha1.HookFailed, now.Add(-time.Minute)))),
		steps: []string{"in place: PatchPodStatus web-2"},
	}, {
		name:  "Done for an earlier revision of the pod: the hook runs again",
		f:     f,
		e:     extended(postCreate(halt)),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true), hookAt(halt, v1alpha1.HookDone, now.Add(-time.Minute), "web-older", 0, time.Time{}))),
		steps: []string{"in place: StartHook web-2"},
	}, {
		name:  "without a member hook a gated pod gets its gate True at once",
		f:     f,
		e:     podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible),
		pods:  with(f.pods(0, 1), f.updated(2, joining(true))),
		steps: []string{"in place: PatchPodStatus web-2"},
	}})
}

func TestAPostCreateHookUnderParallelAndScaleUp(t *testing.T) {
	halt := memberHook("postCreate", false)
	t.Run("Parallel with maxUnavailable 1: a joining pod takes the budget's slot", func(t *testing.T) {
		f := rollout(testgen.Replicas(3), testgen.Parallel())
		plan := f.ext(extended(postCreate(halt)), f.pod(0), f.pod(1), f.updated(2, joining(true), hookAt(halt, v1alpha1.HookPending, now, f.upd.Name, 0, time.Time{})))
		if diff := cmp.Diff([]string(nil), f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	t.Run("OrderedReady scale-up: the next ordinal is not created while the hook is pending", func(t *testing.T) {
		f := steady(testgen.Replicas(3))
		plan := f.ext(extended(postCreate(halt)), f.pod(0), f.pod(1, joining(true), hookAt(halt, v1alpha1.HookPending, now, f.upd.Name, 0, time.Time{})))
		if diff := cmp.Diff([]string(nil), f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if got := waitPolicies(plan); !strings.Contains(got, "postCreate hook of web-1 is a handshake") {
			t.Errorf("waits do not explain the hook:\n%s", got)
		}
	})
	t.Run("a created pod carries the controller's readiness gate", func(t *testing.T) {
		f := steady(testgen.Replicas(2))
		plan := f.ext(extended(postCreate(halt)), f.pod(0))
		pod := plan.Steps[0].Actions[0].Pod
		if len(pod.Spec.ReadinessGates) != 1 || pod.Spec.ReadinessGates[0].ConditionType != v1alpha1.InPlaceReadinessGate {
			t.Errorf("readiness gates %v, want the controller's", pod.Spec.ReadinessGates)
		}
	})
	t.Run("the waits say the hook starts once the containers are Ready", func(t *testing.T) {
		f := steady(testgen.Replicas(2))
		plan := f.ext(extended(postCreate(halt)), f.pod(0), f.pod(1, joining(false)))
		if got := waitPolicies(plan); !strings.Contains(got, "postCreate hook of web-1 starts once its containers are Ready") {
			t.Errorf("waits:\n%s", got)
		}
	})
}

func TestAPostUpdateHookAfterAnUpdateInPlace(t *testing.T) {
	f := rollout(testgen.Replicas(2))
	halt := memberHook("postUpdate", false)
	changed := func(opts ...testgen.PodOption) *corev1.Pod {
		return f.updated(1, append([]testgen.PodOption{testgen.NotReady(now), gate(corev1.ConditionFalse, now), changedInPlace(true)}, opts...)...)
	}
	runPriority(t, []priorityScenario{{
		name:  "the change has taken: postUpdate starts instead of the gate going True",
		f:     f,
		e:     podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, postUpdate(halt)),
		pods:  []*corev1.Pod{f.pod(0, gate(corev1.ConditionTrue, now)), changed()},
		steps: []string{"in place: StartHook web-1"},
	}, {
		name:  "Pending: web-0 is not taken out of service",
		f:     f,
		e:     podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, postUpdate(halt)),
		pods:  []*corev1.Pod{f.pod(0, gate(corev1.ConditionTrue, now)), changed(hookAt(halt, v1alpha1.HookPending, now, f.upd.Name, 0, time.Time{}))},
		steps: nil,
	}, {
		name:  "Done: the gate goes True",
		f:     f,
		e:     podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, postUpdate(halt)),
		pods:  []*corev1.Pod{f.pod(0, gate(corev1.ConditionTrue, now)), changed(hookAt(halt, v1alpha1.HookDone, now, f.upd.Name, 0, time.Time{}))},
		steps: []string{"in place: PatchPodStatus web-1"},
	}, {
		name:  "postCreate alone does not run after an update in place",
		f:     f,
		e:     podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, postCreate(memberHook("postCreate", false))),
		pods:  []*corev1.Pod{f.pod(0, gate(corev1.ConditionTrue, now)), changed()},
		steps: []string{"in place: PatchPodStatus web-1"},
	}})
}

// waitPolicies are the plan's waits' policies, one a line.
func waitPolicies(plan planner.Plan) string {
	var lines []string
	for _, w := range plan.Waits {
		lines = append(lines, w.Pod+": "+w.Policy)
	}
	return strings.Join(lines, "\n")
}
