package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

var primary = testgen.PodLabel("role", "primary")

// rule is a priority rule matching one label.
func rule(weight int32, key, value string) planner.PriorityRule {
	return planner.PriorityRule{Weight: weight, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}}}
}

// prioritized returns the extended defaults with the given rules.
func prioritized(rules ...planner.PriorityRule) *planner.Extended {
	return extended(func(e *planner.Extended) { e.Priority = rules })
}

// primaryLast gives role=primary weight -100.
var primaryLast = prioritized(rule(-100, "role", "primary"))

// priorityScenario is one rolling-update step of a set with rules.
type priorityScenario struct {
	name  string
	f     fixture
	e     *planner.Extended
	pods  []*corev1.Pod
	steps []string
}

func runPriority(t *testing.T, scenarios []priorityScenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			plan := sc.f.ext(sc.e, sc.pods...)
			if diff := cmp.Diff(sc.steps, sc.f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPriorityOrdersAnOrderedReadyRollout(t *testing.T) {
	f := rollout(testgen.Replicas(4))
	runPriority(t, []priorityScenario{{
		name:  "the highest ordinal that is not the primary goes first",
		f:     f,
		e:     primaryLast,
		pods:  with(f.pods(0, 2, 3), f.pod(1, primary)),
		steps: []string{"rolling update: DeletePod web-3"},
	}, {
		name:  "the pods of equal weight go highest ordinal first, past the primary",
		f:     f,
		e:     primaryLast,
		pods:  with(f.pods(0, 2), f.pod(1, primary), f.updated(3)),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "a follower below the primary goes before it",
		f:     f,
		e:     primaryLast,
		pods:  with(f.pods(0), f.pod(1, primary), f.updated(2), f.updated(3)),
		steps: []string{"rolling update: DeletePod web-0"},
	}, {
		name:  "the primary goes last",
		f:     f,
		e:     primaryLast,
		pods:  []*corev1.Pod{f.updated(0), f.pod(1, primary), f.updated(2), f.updated(3)},
		steps: []string{"rolling update: DeletePod web-1"},
	}, {
		name:  "a positive weight brings a low ordinal first",
		f:     f,
		e:     prioritized(rule(5, "zone", "a")),
		pods:  with(f.pods(1, 2, 3), f.pod(0, testgen.PodLabel("zone", "a"))),
		steps: []string{"rolling update: DeletePod web-0"},
	}, {
		name:  "a pod's weight is the sum of the rules that match it, not the largest",
		f:     f,
		e:     prioritized(rule(-100, "role", "primary"), rule(105, "zone", "a"), rule(10, "tier", "cache")),
		pods:  with(f.pods(0), f.pod(1, primary, testgen.PodLabel("zone", "a")), f.pod(2, testgen.PodLabel("tier", "cache")), f.pod(3)),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "rules that match every pod alike keep upstream's order",
		f:     f,
		e:     prioritized(rule(7, "app", "nginx")),
		pods:  f.pods(0, 1, 2, 3),
		steps: []string{"rolling update: DeletePod web-3"},
	}, {
		name:  "an apps/v1 set ignores the labels",
		f:     f,
		e:     nil,
		pods:  with(f.pods(0, 1, 2), f.pod(3, primary)),
		steps: []string{"rolling update: DeletePod web-3"},
	}})
}

func TestPriorityOrdersAParallelRolloutWithinTheBudget(t *testing.T) {
	f := rollout(testgen.Replicas(5), testgen.Parallel(), testgen.MaxUnavailable(2))
	runPriority(t, []priorityScenario{{
		name:  "the two heaviest pods go at once",
		f:     f,
		e:     primaryLast,
		pods:  with(f.pods(0, 1, 2, 3), f.pod(4, primary)),
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-2"},
	}, {
		name:  "with one pod on its way back, only the next in order goes",
		f:     f,
		e:     primaryLast,
		pods:  with(f.pods(0, 1), f.pod(4, primary), f.updated(3), f.updated(2, testgen.NotReady(now))),
		steps: []string{"rolling update: DeletePod web-1"},
	}, {
		name:  "the primary goes with the last follower when the budget allows two",
		f:     f,
		e:     primaryLast,
		pods:  []*corev1.Pod{f.pod(0), f.updated(1), f.updated(2), f.updated(3), f.pod(4, primary)},
		steps: []string{"rolling update: DeletePod web-0", "rolling update: DeletePod web-4"},
	}, {
		name:  "an unavailable old pod is replaced at once whatever its weight, since it costs nothing",
		f:     f,
		e:     primaryLast,
		pods:  with(f.pods(0, 1, 2, 3), f.pod(4, primary, testgen.NotReady(now))),
		steps: []string{"rolling update: DeletePod web-4", "rolling update: DeletePod web-3"},
	}})
}

func TestPriorityKeepsThePartitionAndPause(t *testing.T) {
	f := rollout(testgen.Replicas(4), testgen.Partition(2), testgen.Parallel(), testgen.MaxUnavailable(4))
	runPriority(t, []priorityScenario{{
		name:  "a heavy pod below the partition is not updated",
		f:     f,
		e:     prioritized(rule(100, "role", "follower")),
		pods:  []*corev1.Pod{f.pod(0, testgen.PodLabel("role", "follower")), f.pod(1), f.pod(2), f.pod(3)},
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-2"},
	}, {
		name:  "a paused set updates no pod",
		f:     f,
		e:     extended(func(e *planner.Extended) { e.Priority, e.Paused = primaryLast.Priority, true }),
		pods:  with(f.pods(0, 1, 2), f.pod(3, primary)),
		steps: nil,
	}})
}

func TestPriorityWithAnUnreadableSelectorHoldsTheUpdate(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	bad := prioritized(planner.PriorityRule{Weight: -1, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"role primary": "x"}}})
	plan := f.ext(bad, f.pods(0, 1, 2)...)
	if len(plan.Steps) != 0 {
		t.Errorf("want no action, got %v", f.summary(plan))
	}
	if diff := cmp.Diff([]string{"InvalidPriority StatefulSet/web"}, warningReasons(plan)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestPriorityOrderIsInThePlan(t *testing.T) {
	f := rollout(testgen.Replicas(4), testgen.Partition(1))
	plan := f.ext(primaryLast, f.pod(0), f.pod(1), f.pod(2, primary), f.updated(3))
	want := []planner.OrderedPod{
		{Pod: "web-1", Ordinal: 1, Weight: 0, Now: true},
		{Pod: "web-2", Ordinal: 2, Weight: -100},
	}
	if diff := cmp.Diff(want, plan.Extended.Order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	held := extended(func(e *planner.Extended) { e.Priority, e.Paused = primaryLast.Priority, true })
	want = []planner.OrderedPod{{Pod: "web-1", Ordinal: 1}, {Pod: "web-2", Ordinal: 2, Weight: -100}}
	if diff := cmp.Diff(want, f.ext(held, f.pod(0), f.pod(1), f.pod(2, primary), f.updated(3)).Extended.Order); diff != "" {
		t.Errorf("paused: order (-want +got):\n%s", diff)
	}
	if order := f.ext(extended(), f.pods(0, 1, 2, 3)...).Extended.Order; order != nil {
		t.Errorf("a set without rules lists an order: %v", order)
	}
}
