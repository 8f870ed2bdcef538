package planner_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// overrideCase is a generated rollout of a set with overrides, and what
// the judge knows: the overrides each revision name stands for.
type overrideCase struct {
	f     overrideFixture
	in    planner.Input
	lists map[string][]v1alpha1.OrdinalOverride
}

// randomOverrides lists up to three overrides over disjoint ordinals of
// 0..7, each a memory request.
func randomOverrides(r *rand.Rand) []v1alpha1.OrdinalOverride {
	var out []v1alpha1.OrdinalOverride
	next := r.IntN(3)
	for i := range r.IntN(4) {
		if next > 7 {
			break
		}
		width := r.IntN(3)
		entry := ords(next)
		if width > 0 {
			entry = ords(fmt.Sprintf("%d-%d", next, next+width))
		}
		out = append(out, memoryOverride(fmt.Sprintf("g%d", i), fmt.Sprintf("%dGi", 1+r.IntN(3)), entry...))
		next += width + 1 + r.IntN(2)
	}
	return out
}

// generateOverrideCase builds a rollout from one set of overrides to
// another (sometimes with a new image too), under a random strategy and
// pod update policy, with pods at either revision made from their
// effective templates. With ignored, the planner is given revisions that
// hold no overrides, as a planner blind to them would see the set.
func generateOverrideCase(r *rand.Rand, ignored bool) overrideCase {
	replicas := int32(1 + r.IntN(6))
	opts := []testgen.SetOption{testgen.Replicas(replicas)}
	switch r.IntN(5) {
	case 0:
		opts = append(opts, testgen.OnDelete())
	case 1:
		opts = append(opts, testgen.Recreate())
	default:
		opts = append(opts, testgen.Partition(int32(r.IntN(3))), testgen.MaxUnavailable(int32(1+r.IntN(2))))
	}
	if r.IntN(2) == 0 {
		opts = append(opts, testgen.Parallel())
	}
	was, are := randomOverrides(r), randomOverrides(r)
	if r.IntN(3) == 0 {
		are = was
	}
	f := overrideRollout(was, are, opts...)
	if r.IntN(4) == 0 {
		// A new image as well: every pod changes.
		newer := f.set.DeepCopy()
		newer.Spec.Template.Spec.Containers[0].Image = "app:2"
		upd, _ := revision.NewWith(newer, 2, nil, revision.Options{Overrides: are})
		f.set, f.upd = newer, upd
		f.set.Status.UpdateRevision = upd.Name
	}
	c := overrideCase{f: f, lists: map[string][]v1alpha1.OrdinalOverride{f.cur.Name: was, f.upd.Name: are}}
	cur, upd := f.cur, f.upd
	if ignored {
		oldSet := f.set.DeepCopy()
		oldSet.Spec.Template.Spec.Containers[0].Image = "app:1"
		cur, upd = testgen.RevisionOf(oldSet, 1), testgen.RevisionOf(f.set, 2)
		if cur.Name == upd.Name {
			upd = cur
		}
		c.lists[cur.Name], c.lists[upd.Name] = was, are
		f.set.Status.CurrentRevision, f.set.Status.UpdateRevision = cur.Name, upd.Name
	}
	var pods []*corev1.Pod
	oldBase := f.set.DeepCopy()
	oldBase.Spec.Template.Spec.Containers[0].Image = "app:1"
	for ord := range replicas {
		pick := r.IntN(8)
		switch {
		case pick == 0:
			continue // missing
		case pick <= 2:
			pods = append(pods, testgen.Pod(effective(f.set, are, ord), ord, testgen.At(upd)))
		case pick == 3:
			pods = append(pods, testgen.Pod(effective(oldBase, was, ord), ord, testgen.At(cur), testgen.NotReady(now)))
		default:
			pods = append(pods, testgen.Pod(effective(oldBase, was, ord), ord, testgen.At(cur)))
		}
	}
	e := extended()
	e.Recreate = f.set.Spec.UpdateStrategy.Type == appsv1.RecreateStatefulSetStrategyType
	if r.IntN(3) == 0 {
		e.PodUpdate = v1alpha1.PodUpdateInPlaceIfPossible
	}
	observedOf(e).Revisions = []*appsv1.ControllerRevision{cur, upd}
	c.in = planner.Input{Set: f.set, Pods: pods, Current: cur, Update: upd, Now: now, Extended: e}
	return c
}

// templateOf is, by the judge's own reckoning, the effective template of
// ord at the revision named rev: the revision's template with the override
// the judge knows for it.
func (c overrideCase) templateOf(rev string, ord int32) *corev1.PodTemplateSpec {
	var data *appsv1.ControllerRevision
	for _, r := range []*appsv1.ControllerRevision{c.in.Current, c.in.Update} {
		if r.Name == rev {
			data = r
		}
	}
	if data == nil {
		return nil
	}
	base, err := revision.Apply(c.in.Set, data)
	if err != nil {
		return nil
	}
	t := effective(base, c.lists[rev], ord).Spec.Template
	return &t
}

// overrideViolations says how the plan breaks the two rules of overrides:
// a pod is made from its ordinal's effective template at its revision,
// and a pod whose effective template an update does not change is never
// deleted (moved by its label instead).
func overrideViolations(c overrideCase, plan planner.Plan) []string {
	var out []string
	for _, s := range plan.Steps {
		for _, a := range s.Actions {
			switch a.Kind {
			case planner.CreatePod:
				want := c.templateOf(a.Pod.Labels[appsv1.StatefulSetRevisionLabel], a.Ordinal)
				if want == nil || !apiequality.Semantic.DeepEqual(want.Spec.Containers, a.Pod.Spec.Containers) {
					out = append(out, fmt.Sprintf("%s is created with memory %s, not from its effective template", a.Pod.Name, memoryOf(a.Pod)))
				}
			case planner.DeletePod:
				from := c.templateOf(a.Pod.Labels[appsv1.StatefulSetRevisionLabel], a.Ordinal)
				to := c.templateOf(c.in.Update.Name, a.Ordinal)
				if from != nil && to != nil && apiequality.Semantic.DeepEqual(from, to) {
					out = append(out, fmt.Sprintf("%s is deleted although its effective template does not change", a.Pod.Name))
				}
			}
		}
	}
	return out
}

func TestOverridesProperties(t *testing.T) {
	moved := 0
	for seed := range propertyRuns() {
		c := generateOverrideCase(rand.New(rand.NewPCG(seed, 31)), false)
		plan := compute(c.in)
		for _, v := range overrideViolations(c, plan) {
			t.Errorf("seed %d: %s\nsteps: %v", seed, v, c.f.summary(plan))
		}
		for _, s := range plan.Steps {
			for _, a := range s.Actions {
				if a.Kind == planner.UpdatePod && a.Pod.Labels[appsv1.StatefulSetRevisionLabel] == c.in.Update.Name {
					moved++
				}
			}
		}
	}
	if min := propertyRuns() / 4; uint64(moved) < min {
		t.Errorf("only %d pods were moved by their label; want at least %d for the property to say something", moved, min)
	}
}

// The judge is not blind: a planner that ignores the overrides breaks the
// rules.
func TestOverridesPropertiesCatchAPlannerThatIgnoresThem(t *testing.T) {
	violations := 0
	for seed := range propertyRuns() {
		c := generateOverrideCase(rand.New(rand.NewPCG(seed, 31)), true)
		violations += len(overrideViolations(c, compute(c.in)))
	}
	if violations == 0 {
		t.Error("no violation found in plans that ignore the overrides")
	}
	t.Logf("%d violations in %d plans that ignore the overrides", violations, propertyRuns())
}
