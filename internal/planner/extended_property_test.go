package planner_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// TestExtendedPlanInvariants checks, over generated inputs with generated
// extended fields, the promises the extended kind makes on top of apps/v1:
// self-healing never replaces a Ready pod or one at the update revision, a
// paused set replaces nothing for an update, Recreate never runs two
// revisions at once, and a rollback never loops.
func TestExtendedPlanInvariants(t *testing.T) {
	for seed := range propertyRuns() {
		r := rand.New(rand.NewPCG(seed, 7))
		g := generate(prng{r})
		g.in.Extended = generateExtended(r, g)
		if g.in.Extended.Recreate {
			g.in.Set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: "Recreate"}
		}
		plan := planner.Compute(g.in)
		for _, v := range extendedViolations(g.in, plan) {
			t.Errorf("seed %d: %s\nsteps: %v", seed, v, g.f.summary(plan))
		}
	}
}

func generateExtended(r *rand.Rand, g generated) *planner.Extended {
	e := extended(func(e *planner.Extended) {
		e.SelfHealing = r.IntN(4) > 0
		e.Paused = r.IntN(5) == 0
		e.Recreate = r.IntN(6) == 0
		e.OnFailure = []planner.FailurePolicy{planner.FailureReport, planner.FailurePause, planner.FailureRollback}[r.IntN(3)]
		e.Last.LastProgress = now.Add(-time.Duration(r.IntN(20)) * time.Minute)
		e.Last.UpdateRevision = []string{g.f.cur.Name, g.f.upd.Name}[r.IntN(2)]
		e.Last.LastCompletedRevision = []string{"", g.f.cur.Name, g.f.upd.Name}[r.IntN(3)]
		if r.IntN(3) == 0 {
			e.Last.Rollback = &planner.RollbackRecord{From: g.f.cur.Name, To: []string{g.f.cur.Name, g.f.upd.Name}[r.IntN(2)]}
		}
	})
	return e
}

func extendedViolations(in planner.Input, plan planner.Plan) []string {
	var out []string
	e, update := in.Extended, in.Update.Name
	observed := map[string]*corev1.Pod{}
	for _, p := range in.Pods {
		observed[p.Name] = p
	}
	oldExists := false
	for _, p := range in.Pods {
		if _, ok := planner.ParseOrdinal(in.Set.Name, p.Name); ok && p.Status.Phase != "" && p.Labels[appsv1.StatefulSetRevisionLabel] != update {
			oldExists = true
		}
	}
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			p := observed[podName(a)]
			finished := p != nil && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded)
			switch {
			case a.Kind == planner.DeletePod && step.Name == planner.StepReplicas && !finished && p != nil && planner.IsRunningAndReady(p):
				out = append(out, "the replica pass deletes a Ready pod "+p.Name)
			case a.Kind == planner.DeletePod && step.Name == planner.StepReplicas && !finished && p != nil && p.Labels[appsv1.StatefulSetRevisionLabel] == update:
				out = append(out, "self-healing deletes a pod at the update revision "+p.Name)
			case a.Kind == planner.DeletePod && e.Paused && (step.Name == planner.StepRollingUpdate || (step.Name == planner.StepReplicas && !finished)):
				out = append(out, fmt.Sprintf("a paused set deletes %s for an update (%s)", a.Pod.Name, step.Name))
			case a.Kind == planner.CreatePod && e.Recreate && !e.Paused && oldExists && a.Pod.Labels[appsv1.StatefulSetRevisionLabel] == update:
				out = append(out, "Recreate creates "+a.Pod.Name+" at the update revision while an old-revision pod exists")
			}
		}
	}
	if x := plan.Extended; x != nil && x.Change != nil {
		c := x.Change
		switch {
		case e.Paused:
			out = append(out, "a paused set is changed again")
		case c.RollbackTo != "" && c.RollbackTo == update:
			out = append(out, "a rollback to the update revision itself")
		case c.RollbackTo != "" && e.Last.Rollback != nil && e.Last.Rollback.To == update:
			out = append(out, "a rollback of a revision a rollback restored: a loop")
		case c.RollbackTo != "" && e.OnFailure != planner.FailureRollback:
			out = append(out, "a rollback without onFailure Rollback")
		}
	}
	return out
}

func podName(a planner.Action) string {
	if a.Pod != nil {
		return a.Pod.Name
	}
	return ""
}
