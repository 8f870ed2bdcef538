package planner_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// TestRollingUpdateFollowsPriority checks priorityViolation over generated
// rollouts whose pods are mostly healthy, so that the rolling update runs
// and leaves pods waiting, under both pod management policies.
func TestRollingUpdateFollowsPriority(t *testing.T) {
	ordered := 0
	for seed := range propertyRuns() {
		r := rand.New(rand.NewPCG(seed, 11))
		replicas := int32(2 + r.IntN(5))
		opts := []testgen.SetOption{testgen.Replicas(replicas), testgen.MaxUnavailable(int32(1 + r.IntN(3))), testgen.Partition(int32(r.IntN(3)))}
		if r.IntN(2) == 0 {
			opts = append(opts, testgen.Parallel())
		}
		f := rollout(opts...)
		in := f.input(rolloutPods(r, f, replicas))
		in.Extended = extended()
		labelForPriority(r, in.Extended, in.Pods)
		plan := compute(in)
		if v := priorityViolation(in, plan); v != "" {
			t.Errorf("seed %d: %s\nsteps: %v", seed, v, f.summary(plan))
		}
		if n := len(deletedPods(plan)); n > 0 && len(waitingPods(in)) > n {
			ordered++
		}
	}
	if min := propertyRuns() / 4; uint64(ordered) < min {
		t.Errorf("only %d plans deleted some old pods and left others waiting; want at least %d for the property to say something", ordered, min)
	}
}

// rolloutPods are the set's pods, each at the update revision (one in
// four), not Ready at the current one (one in eight) or Ready at it.
func rolloutPods(r *rand.Rand, f fixture, replicas int32) []*corev1.Pod {
	var pods []*corev1.Pod
	for ord := range replicas {
		switch r.IntN(8) {
		case 0, 1:
			pods = append(pods, f.updated(ord))
		case 2:
			pods = append(pods, f.pod(ord, testgen.NotReady(now)))
		default:
			pods = append(pods, f.pod(ord))
		}
	}
	return pods
}

// generatePriority gives half the generated sets rules on role and zone,
// and labels about one pod in three with each.
func generatePriority(r *rand.Rand, e *planner.Extended, pods []*corev1.Pod) {
	if r.IntN(2) == 0 {
		return
	}
	labelForPriority(r, e, pods)
}

// labelForPriority sets rules on role and zone and labels about one pod in
// three with each.
func labelForPriority(r *rand.Rand, e *planner.Extended, pods []*corev1.Pod) {
	e.Priority = []planner.PriorityRule{rule(-100, "role", "primary"), rule(int32(r.IntN(21)-10), "zone", "a")}
	for i, p := range pods {
		p = p.DeepCopy()
		if r.IntN(3) == 0 {
			p.Labels["role"] = "primary"
		}
		if r.IntN(3) == 0 {
			p.Labels["zone"] = "a"
		}
		pods[i] = p
	}
}

// priorityViolation checks the order of the rolling update's deletes of
// Available pods: no Available old-revision pod at or above the partition
// that ranks before a deleted one (heavier, or as heavy at a higher
// ordinal) is left in place.
func priorityViolation(in planner.Input, plan planner.Plan) string {
	e, set := in.Extended, in.Set
	if len(e.Priority) == 0 {
		return ""
	}
	deleted, available := deletedPods(plan), func(p *corev1.Pod) bool {
		return p.DeletionTimestamp == nil && planner.IsAvailable(p, set.Spec.MinReadySeconds, in.Now)
	}
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if step.Name != planner.StepRollingUpdate || a.Pod == nil || !available(a.Pod) {
				continue
			}
			for _, q := range waitingPods(in) {
				if !deleted[q.Name] && available(q) && ranksBefore(e.Priority, q, a.Pod) {
					return fmt.Sprintf("the rolling update deletes %s while %s, which ranks before it, waits", a.Pod.Name, q.Name)
				}
			}
		}
	}
	return ""
}

// waitingPods are the observed pods at the set's ordinals from the
// partition on, at an old revision.
func waitingPods(in planner.Input) []*corev1.Pod {
	set := in.Set
	from := planner.StartOrdinal(set) + planner.Partition(set)
	var out []*corev1.Pod
	for _, ord := range wantedOrdinals(in) {
		for _, p := range in.Pods {
			if ord >= from && p.Name == planner.PodName(set.Name, ord) && p.Labels[appsv1.StatefulSetRevisionLabel] != in.Update.Name {
				out = append(out, p)
			}
		}
	}
	return out
}

func deletedPods(plan planner.Plan) map[string]bool {
	out := map[string]bool{}
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if a.Kind == planner.DeletePod {
				out[a.Pod.Name] = true
			}
		}
	}
	return out
}

// ranksBefore reports whether q weighs more than p, or as much at a
// higher ordinal (pod names of one set compare by ordinal as numbers).
func ranksBefore(rules []planner.PriorityRule, q, p *corev1.Pod) bool {
	wq, wp := weightOf(rules, q), weightOf(rules, p)
	if wq != wp {
		return wq > wp
	}
	return len(q.Name) > len(p.Name) || len(q.Name) == len(p.Name) && q.Name > p.Name
}

func weightOf(rules []planner.PriorityRule, p *corev1.Pod) int32 {
	var sum int32
	for _, r := range rules {
		for k, v := range r.Selector.MatchLabels {
			if labels.Set(p.Labels).Get(k) == v {
				sum += r.Weight
			}
		}
	}
	return sum
}
