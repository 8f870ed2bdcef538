package planner_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// counted is e with a Count partition.
func counted(e *planner.Extended) *planner.Extended {
	out := *e
	out.PartitionCount = true
	return &out
}

type countScenario struct {
	name  string
	f     fixture
	e     *planner.Extended
	pods  []*corev1.Pod
	steps []string
	kept  []string
}

func TestACountPartitionKeepsTheLastPodsOfTheUpdateOrder(t *testing.T) {
	four := rollout(testgen.Replicas(4), testgen.Partition(1))
	parallel := rollout(testgen.Replicas(4), testgen.Partition(2), testgen.Parallel(), testgen.MaxUnavailable(4))
	reserved := rollout(testgen.Replicas(3), testgen.Partition(2), testgen.Parallel(), testgen.MaxUnavailable(3))
	for _, sc := range []countScenario{{
		name:  "with the primary last, a partition of 1 keeps the primary, not ordinal 0",
		f:     four,
		e:     counted(primaryLast),
		pods:  with(four.pods(0, 2), four.pod(1, primary), four.updated(3)),
		steps: []string{"rolling update: DeletePod web-2"},
		kept:  []string{"web-1"},
	}, {
		name:  "so ordinal 0, below an ordinal partition of 1, is updated",
		f:     four,
		e:     counted(primaryLast),
		pods:  with(four.pods(0), four.pod(1, primary), four.updated(2), four.updated(3)),
		steps: []string{"rolling update: DeletePod web-0"},
		kept:  []string{"web-1"},
	}, {
		name:  "an ordinal partition of 1 instead keeps web-0 and updates the primary",
		f:     four,
		e:     primaryLast,
		pods:  with(four.pods(0), four.pod(1, primary), four.updated(2), four.updated(3)),
		steps: []string{"rolling update: DeletePod web-1"},
	}, {
		name: "once replicas - partition pods are updated, nothing more goes",
		f:    four,
		e:    counted(primaryLast),
		pods: []*corev1.Pod{four.updated(0), four.pod(1, primary), four.updated(2), four.updated(3)},
		kept: []string{"web-1"},
	}, {
		name:  "without rules it keeps the lowest ordinals, as an ordinal partition does",
		f:     parallel,
		e:     counted(extended()),
		pods:  parallel.pods(0, 1, 2, 3),
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-2"},
		kept:  []string{"web-0", "web-1"},
	}, {
		name:  "pods already updated count first, wherever they are",
		f:     parallel,
		e:     counted(extended()),
		pods:  with(parallel.pods(1, 2, 3), parallel.updated(0)),
		steps: []string{"rolling update: DeletePod web-3"},
		kept:  []string{"web-1", "web-2"},
	}, {
		name:  "a pod on its way out stays chosen, so the count holds",
		f:     parallel,
		e:     counted(prioritized(rule(10, "tier", "cache"))),
		pods:  with(parallel.pods(1, 3), parallel.pod(0, testgen.PodLabel("tier", "cache")), parallel.pod(2, testgen.Terminating(now))),
		steps: []string{"rolling update: DeletePod web-0"},
		kept:  []string{"web-1", "web-3"},
	}, {
		name:  "a missing pod counts as chosen and comes back at the update revision",
		f:     parallel,
		e:     counted(extended()),
		pods:  with(parallel.pods(0, 2), parallel.updated(3)),
		steps: []string{"replicas*2: CreatePod web-1 at update"},
		kept:  []string{"web-0", "web-2"},
	}, {
		name:  "reserved ordinals are not counted: a partition of 2 keeps two of ordinals 0, 2 and 3",
		f:     reserved,
		e:     counted(reservedExt(planner.OrdinalRange{Low: 1, High: 1})),
		pods:  reserved.pods(0, 2, 3),
		steps: []string{"rolling update: DeletePod web-3"},
		kept:  []string{"web-0", "web-2"},
	}, {
		name:  "an ordinal partition of 2 with ordinal 1 reserved keeps web-0 alone",
		f:     reserved,
		e:     reservedExt(planner.OrdinalRange{Low: 1, High: 1}),
		pods:  reserved.pods(0, 2, 3),
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-2"},
	}, {
		name: "a partition of at least the replicas keeps every pod",
		f:    rollout(testgen.Replicas(2), testgen.Partition(5)),
		e:    counted(extended()),
		pods: rollout(testgen.Replicas(2), testgen.Partition(5)).pods(0, 1),
		kept: []string{"web-0", "web-1"},
	}} {
		t.Run(sc.name, func(t *testing.T) {
			plan := sc.f.ext(sc.e, sc.pods...)
			if diff := cmp.Diff(sc.steps, sc.f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(sc.kept, plan.Extended.Kept); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
}

func reservedExt(ranges ...planner.OrdinalRange) *planner.Extended {
	return extended(func(e *planner.Extended) { e.Reserved = ranges })
}

func TestACountPartitionReachedSaysSo(t *testing.T) {
	f := rollout(testgen.Replicas(4), testgen.Partition(1))
	plan := f.ext(counted(primaryLast), f.updated(0), f.pod(1, primary), f.updated(2), f.updated(3))
	c := condition(plan.Extended.Status.Conditions, planner.ConditionProgressing)
	if c.Status != metav1.ConditionTrue || c.Reason != planner.ReasonPartitionRolledOut || !strings.Contains(c.Message, "keeps 1 at the current revision") {
		t.Errorf("Progressing %s/%s %q, want True/PartitionRolledOut saying one pod is kept", c.Status, c.Reason, c.Message)
	}
	plan = f.ext(counted(primaryLast), f.pod(0), f.pod(1, primary), f.updated(2), f.updated(3))
	if c := condition(plan.Extended.Status.Conditions, planner.ConditionProgressing); c.Reason == planner.ReasonPartitionRolledOut {
		t.Errorf("Progressing %s with web-0 still to update, want the rollout in progress", c.Reason)
	}
}

// The count as a property: on random sets (priority rules, reserved
// ordinals, pods missing, terminating, unavailable or at either
// revision), a plan never brings more pods to the update revision than
// replicas - partition, counting pods already there, pods on their way
// out and pods the plan deletes or creates at the update revision;
// unless more than that were there before the plan, when it brings none.
func TestACountPartitionNeverTakesMoreThanItsCount(t *testing.T) {
	for seed := range uint64(1000) {
		rng := rand.New(rand.NewPCG(seed, 11))
		n, part := int32(1+rng.IntN(7)), int32(rng.IntN(8))
		opts := []testgen.SetOption{testgen.Replicas(n), testgen.Partition(part)}
		if rng.IntN(2) == 0 {
			opts = append(opts, testgen.Parallel(), testgen.MaxUnavailable(int32(1+rng.IntN(4))))
		}
		f := rollout(opts...)
		e := counted(prioritized(rule(int32(rng.IntN(21)-10), "role", "primary")))
		if rng.IntN(2) == 0 {
			low := int32(rng.IntN(4))
			e.Reserved = []planner.OrdinalRange{{Low: low, High: low + int32(rng.IntN(2))}}
		}
		ords := planner.SetOrdinals(0, n, e.Reserved)
		var pods []*corev1.Pod
		for _, ord := range ords {
			var po []testgen.PodOption
			switch rng.IntN(8) {
			case 0:
				continue
			case 1:
				po = append(po, testgen.Terminating(now))
			case 2:
				po = append(po, testgen.NotReady(now))
			}
			if rng.IntN(3) == 0 {
				po = append(po, primary)
			}
			if rng.IntN(3) == 0 {
				pods = append(pods, f.updated(ord, po...))
			} else {
				pods = append(pods, f.pod(ord, po...))
			}
		}
		plan := f.ext(e, pods...)
		if err := checkCount(f, plan, pods, len(ords), int(part)); err != nil {
			t.Fatalf("seed %d (replicas %d, partition %d, reserved %v): %v\nsteps: %v", seed, n, part, e.Reserved, err, f.summary(plan))
		}
	}
}

// checkCount counts, from the pods and the plan alone, the ordinals
// bound for the update revision.
func checkCount(f fixture, plan planner.Plan, pods []*corev1.Pod, ordinals, part int) error {
	bound, before := map[string]bool{}, 0
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Labels[appsv1.StatefulSetRevisionLabel] == f.upd.Name {
			bound[p.Name] = true
			before++
		}
	}
	before += ordinals - len(pods) // missing ones may come back updated
	var took []string
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			switch {
			case a.Kind == planner.DeletePod && !bound[a.Pod.Name]:
				took = append(took, a.Pod.Name)
			case a.Kind == planner.CreatePod && a.Pod.Labels[appsv1.StatefulSetRevisionLabel] == f.upd.Name:
				// counted in before, as missing
			}
		}
	}
	if want := max(ordinals-part, 0); len(took) > 0 && before+len(took) > want {
		return fmt.Errorf("%d pods bound for the update revision before the plan, and it took %v: over replicas - partition = %d", before, took, want)
	}
	if slices.ContainsFunc(plan.Extended.Kept, func(name string) bool { return slices.Contains(took, name) }) {
		return fmt.Errorf("took %v, which the plan says it keeps (%v)", took, plan.Extended.Kept)
	}
	return nil
}

// A kept pod deleted while the partition holds comes back at the current
// revision: the updated pods fill the count before it.
func TestAKeptPodLostAtThePartitionComesBackAtTheCurrentRevision(t *testing.T) {
	f := rollout(testgen.Replicas(4), testgen.Partition(1))
	plan := f.ext(counted(primaryLast), f.updated(0), f.updated(2), f.updated(3))
	if got, want := f.summary(plan), []string{"replicas: CreatePod web-1 at current"}; !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}
