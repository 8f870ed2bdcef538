package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

var requested = testgen.PodLabel(v1alpha1.DeleteRequestedLabel, "true")

func TestDeleteRequested(t *testing.T) {
	three := steady(testgen.Replicas(3))
	par := steady(testgen.Replicas(4), testgen.Parallel(), testgen.MaxUnavailable(2))
	upd := rollout(testgen.Replicas(3))
	for _, tc := range []struct {
		name  string
		f     fixture
		e     *planner.Extended
		pods  []*corev1.Pod
		steps []string
		waits []string
	}{{
		name:  "a labelled pod is deleted so that it is created again",
		f:     three,
		e:     extended(),
		pods:  with(three.pods(0, 2), three.pod(1, requested)),
		steps: []string{"delete requested: DeletePod web-1"},
	}, {
		name:  "apps/v1 ignores the label",
		f:     three,
		pods:  with(three.pods(0, 2), three.pod(1, requested)),
		steps: nil,
	}, {
		name:  "with maxUnavailable 1 the highest labelled pod goes first and the other waits",
		f:     three,
		e:     extended(),
		pods:  with(three.pods(0), three.pod(1, requested), three.pod(2, requested)),
		steps: []string{"delete requested: DeletePod web-2"},
		waits: []string{"web-1: Available"},
	}, {
		name:  "under Parallel an unavailable pod uses up the budget",
		f:     par,
		e:     extended(),
		pods:  with(par.pods(0), par.pod(1, testgen.NotReady(now)), par.pod(2, requested), par.pod(3, requested)),
		steps: []string{"delete requested: DeletePod web-3"},
		waits: []string{"web-2: Available"},
	}, {
		name:  "under Parallel maxUnavailable 2 lets two go at once",
		f:     par,
		e:     extended(),
		pods:  with(par.pods(0, 1), par.pod(2, requested), par.pod(3, requested)),
		steps: []string{"delete requested: DeletePod web-3", "delete requested: DeletePod web-2"},
	}, {
		name:  "a labelled pod that is already unavailable costs nothing",
		f:     par,
		e:     extended(),
		pods:  with(par.pods(0), par.pod(1, testgen.NotReady(now)), par.pod(2, testgen.NotReady(now)), par.pod(3, requested, testgen.NotReady(now))),
		steps: []string{"delete requested: DeletePod web-3"},
	}, {
		name:  "the rolling update waits while a requested delete holds the budget",
		f:     upd,
		e:     extended(),
		pods:  with(upd.pods(0, 2), upd.pod(1, requested)),
		steps: []string{"delete requested: DeletePod web-1"},
	}, {
		name:  "a terminating labelled pod is not deleted again",
		f:     three,
		e:     extended(),
		pods:  with(three.pods(0, 2), three.pod(1, requested, testgen.Terminating(now))),
		waits: []string{"web-1: Terminating"},
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
