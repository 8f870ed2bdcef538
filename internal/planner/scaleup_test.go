package planner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func limited(n int) *planner.Extended {
	return extended(func(e *planner.Extended) { e.ScaleUpMaxUnavailable = n })
}

// creates lists the pods a plan creates.
func creates(plan planner.Plan) []string {
	var out []string
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if a.Kind == planner.CreatePod {
				out = append(out, a.Pod.Name)
			}
		}
	}
	return out
}

func TestScaleUpMaxUnavailable(t *testing.T) {
	par := steady(testgen.Replicas(8), testgen.Parallel())
	ordered := steady(testgen.Replicas(8))
	for _, tc := range []struct {
		name    string
		f       fixture
		e       *planner.Extended
		pods    []*corev1.Pod
		creates []string
		wait    string
	}{{
		name:    "without a limit every missing pod is created at once, as apps/v1 does",
		f:       par,
		e:       extended(),
		pods:    par.pods(0, 1),
		creates: []string{"web-2", "web-3", "web-4", "web-5", "web-6", "web-7"},
	}, {
		name:    "with maxUnavailable 2 two missing pods are created, lowest ordinals first",
		f:       par,
		e:       limited(2),
		pods:    par.pods(0, 1),
		creates: []string{"web-2", "web-3"},
		wait:    "web-4: scaleStrategy.maxUnavailable 2: 2 pods are not yet available, so web-4 and 3 more missing pods are created only as pods become available",
	}, {
		name:    "pods created and not yet Ready, or without a phase yet, use the budget up",
		f:       par,
		e:       limited(2),
		pods:    with(par.pods(0, 1), par.pod(2, testgen.NotReady(now)), par.pod(3, testgen.NoPhase())),
		creates: nil,
		wait:    "web-4: scaleStrategy.maxUnavailable 2: 2 pods are not yet available, so web-4 and 3 more missing pods are created only as pods become available",
	}, {
		name:    "one Ready frees one place",
		f:       par,
		e:       limited(2),
		pods:    with(par.pods(0, 1, 2), par.pod(3, testgen.NotReady(now))),
		creates: []string{"web-4"},
		wait:    "web-5: scaleStrategy.maxUnavailable 2: 2 pods are not yet available, so web-5 and 2 more missing pods are created only as pods become available",
	}, {
		name:    "OrderedReady ignores the limit: it creates one pod at a time anyway",
		f:       ordered,
		e:       limited(2),
		pods:    ordered.pods(0, 1),
		creates: []string{"web-2"},
	}, {
		name:    "an apps/v1 set has no limit",
		f:       par,
		pods:    par.pods(0, 1),
		creates: []string{"web-2", "web-3", "web-4", "web-5", "web-6", "web-7"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.ext(tc.e, tc.pods...)
			if diff := cmp.Diff(tc.creates, creates(plan)); diff != "" {
				t.Errorf("creates (-want +got):\n%s", diff)
			}
			var wait string
			for _, w := range plan.Waits {
				if strings.HasPrefix(w.Policy, "scaleStrategy") {
					wait = w.Pod + ": " + w.Policy
				}
			}
			if wait != tc.wait {
				t.Errorf("wait %q\nwant %q", wait, tc.wait)
			}
		})
	}
}

// A set of many thousands held back builds no pod for the ordinals it
// holds: the plan is not cut short (Truncated), as it would be after
// MaxCreates placeholders, so the controller does not sync again at once.
func TestAHeldScaleUpBuildsNoPlaceholders(t *testing.T) {
	f := steady(testgen.Replicas(50000), testgen.Parallel())
	plan := f.ext(limited(10), f.pods(0)...)
	if got := len(creates(plan)); got != 10 || plan.Truncated {
		t.Errorf("%d creates, truncated %v; want 10 and not truncated", got, plan.Truncated)
	}
}
