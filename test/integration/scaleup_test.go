package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// A Parallel extended set with scaleStrategy.maxUnavailable 3 and a
// template whose pods never become Ready starts three pods of its twelve,
// not twelve; `ordinal rollout plan` says why the others wait. Fixed, the
// set reaches twelve Ready pods, never more than three of them unavailable
// while it grows (the invariant checker's scale-up-budget rule watches
// every creation).
func TestAParallelScaleUpStartsAtMostMaxUnavailablePods(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(12), parallel(), podAnnotation(behaviorKey, "never-ready")), func(s *v1alpha1.StatefulSet) {
		s.Spec.ScaleStrategy = &v1alpha1.ScaleStrategy{MaxUnavailable: new(intstr.FromInt32(3))}
	}))
	waitExtended(t, ns, 30*time.Second, "3 pods, none Ready", func(s *v1alpha1.StatefulSet) error {
		if s.Status.ObservedGeneration != s.Generation || s.Status.Replicas != 3 || len(listPods(t, ns)) != 3 {
			return fmt.Errorf("want the controller to have seen its 3 pods")
		}
		return nil
	})
	plan := runOrdinal(t, ns, "rollout", "plan", "osts/web")
	if want := "scaleStrategy.maxUnavailable 3: 3 pods are not yet available, so web-3 and 8 more missing pods are created only as pods become available"; plan.code != 0 || !strings.Contains(plan.out, want) {
		t.Errorf("rollout plan: exit %d, want 0 and %q", plan.code, want)
	}
	if n := len(listPods(t, ns)); n != 3 {
		t.Errorf("%d pods after the plan, want still 3", n)
	}

	patchExtended(t, ns, `{"spec":{"template":{"metadata":{"annotations":{"`+behaviorKey+`":null}}}}}`)
	waitExtended(t, ns, time.Minute, "12 ready replicas", extendedSettled)
}
