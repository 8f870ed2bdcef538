package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"

	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// The tests in this file set the StatefulSetRecreateStrategy gate for the
// whole process: the API server admits type Recreate only while it is on,
// and upstream's controller in this process reads it on every sync. So
// none of them calls t.Parallel: Go runs every such top-level test, one
// at a time, before it lets any test that does run, and the gate is back
// at the plane's value (off) when they are done.

func recreate() setOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RecreateStatefulSetStrategyType}
	}
}

// TestDifferentialRecreate runs an update under Recreate with the gate on:
// every old pod is deleted, the new ones are created only once all are
// gone (one at a time under OrderedReady, together under Parallel), and
// the Progressing condition ends RecreateCompleted. Events, pods,
// revisions and the final status, conditions included, must match.
func TestDifferentialRecreate(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.StatefulSetRecreateStrategy, true)
	for _, tc := range []struct {
		name     string
		opts     []setOption
		parallel bool
	}{
		{"OrderedReady", nil, false},
		{"Parallel", []setOption{parallel()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The deletes run side by side under either policy: each step's
			// events are compared as a sorted list, and the order checked
			// apart.
			builtin, ordinal, ok := differential(t, true, func(r *run) {
				t, ns := r.t, r.ns
				createSet(t, webSet(ns, append([]setOption{replicas(3), recreate()}, tc.opts...)...))
				rev1 := waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision
				r.step()
				mark := r.rec.Mark()
				updateSet(t, ns, setImage(imageNew))
				set := waitSet(t, ns, time.Minute, "the recreate to finish", updatedFrom(rev1))
				if c := progressingOf(set); c == nil || c.Reason != "RecreateCompleted" || c.Status != corev1.ConditionFalse {
					t.Errorf("Progressing condition after the update: %+v, want False RecreateCompleted", c)
				}
				r.step()
				got := typedNames(r.rec.Since(mark, evAdded, evDeleted))
				if len(got) != 6 || !slices.Equal(sortedCopy(got[:3]), []string{"DELETED web-0", "DELETED web-1", "DELETED web-2"}) {
					t.Fatalf("pod events of the update: %v, want the three deletes before any create", got)
				}
				if created := got[3:]; !tc.parallel && !slices.Equal(created, []string{"ADDED web-0", "ADDED web-1", "ADDED web-2"}) {
					t.Errorf("OrderedReady created %v, want web-0, web-1, web-2 in order", created)
				}
			})
			if ok {
				compareOutcomes(t, builtin, ordinal)
			}
		})
	}
}

func progressingOf(set *appsv1.StatefulSet) *appsv1.StatefulSetCondition {
	for i, c := range set.Status.Conditions {
		if c.Type == appsv1.StatefulSetProgressing {
			return &set.Status.Conditions[i]
		}
	}
	return nil
}

// TestDifferentialRecreateGateOff: a set of type Recreate (admitted while
// the gate was on) under controllers whose gate is off. Upstream records
// a Warning, UnknownStrategy, touches no pod and writes no status; the
// new template's revision is created all the same. The set runs two pods
// with the gate on first; both controllers are then stopped, the gate
// turned off, the set given a new image and a third replica, and the
// controllers started again with the gate off.
func TestDifferentialRecreateGateOff(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.StatefulSetRecreateStrategy, true)
	names := [2]string{"builtin", "ordinal"}
	var runs [2]*run
	for i := range runs {
		ns := newNamespace(t)
		runs[i] = &run{t: t, ns: ns, rec: recordPods(t, ns)}
	}
	start := func(t *testing.T, i int, gateOff bool) func() {
		if i == 0 {
			return runBuiltinController(t, runs[i].ns)
		}
		return runOrdinalController(t, runs[i].ns, controller.Options{Release: planner.Release{RecreateGateOff: gateOff}})
	}
	var generation [2]int64
	t.Run("gate on", func(t *testing.T) {
		for i := range runs {
			t.Run(names[i], func(t *testing.T) {
				t.Parallel()
				stop := start(t, i, false)
				defer stop()
				createSet(t, webSet(runs[i].ns, replicas(2), recreate()))
				generation[i] = waitSet(t, runs[i].ns, time.Minute, "2 ready replicas", settled).Status.ObservedGeneration
			})
		}
	})
	if t.Failed() {
		return
	}
	for _, r := range runs {
		r.step()
	}
	t.Run("gate off", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.StatefulSetRecreateStrategy, false)
		for i := range runs {
			t.Run(names[i], func(t *testing.T) {
				t.Parallel()
				ns := runs[i].ns
				// The API server keeps a type the set already has.
				updateSet(t, ns, func(s *appsv1.StatefulSet) {
					s.Spec.Template.Spec.Containers[0].Image = imageNew
					s.Spec.Replicas = ptr(int32(3))
				})
				defer start(t, i, true)()
				want := fmt.Sprintf("Warning UnknownStrategy: statefulset %s/web uses Recreate strategy but feature gate StatefulSetRecreateStrategy is disabled", ns)
				waitFor(t, time.Minute, "the UnknownStrategy warning", func() (bool, error) {
					got := setEvents(t, ns)
					return slices.Contains(got, want), fmt.Errorf("events %s", strings.Join(got, "; "))
				})
				consistently(t, 3*time.Second, "no pod touched and no status written", func() error {
					if names := podNames(t, ns); !slices.Equal(names, []string{"web-0", "web-1"}) {
						return fmt.Errorf("pods %v, want web-0 and web-1 as they were", names)
					}
					if got := getSet(t, ns).Status.ObservedGeneration; got != generation[i] {
						return fmt.Errorf("status written: observedGeneration %d, was %d", got, generation[i])
					}
					return nil
				})
				if revs := listRevisions(t, ns); len(revs) != 2 {
					t.Errorf("revisions %s, want the new template's too", describeRevisions(revs))
				}
				runs[i].step()
			})
		}
	})
	if t.Failed() {
		return
	}
	compareOutcomes(t, runs[0].outcome(false), runs[1].outcome(false))
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
