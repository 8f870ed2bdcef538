package rolloutview

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestRenderPlan(t *testing.T) {
	now := testgen.Epoch.Add(2 * time.Minute)
	tests := []struct {
		name   string
		golden string
		build  func() (*appsv1.StatefulSet, []*corev1.Pod, []*appsv1.ControllerRevision)
	}{
		{
			name: "a new pod that never becomes Ready halts OrderedReady", golden: "plan-halted.txt",
			build: func() (*appsv1.StatefulSet, []*corev1.Pod, []*appsv1.ControllerRevision) {
				r := newRollout()
				return r.set, r.pods(testgen.NotReady(testgen.Epoch)), revs(r.oldRev, r.newRev)
			},
		},
		{
			name: "a healthy rollout deletes the next old pod", golden: "plan-next.txt",
			build: func() (*appsv1.StatefulSet, []*corev1.Pod, []*appsv1.ControllerRevision) {
				r := newRollout()
				return r.set, r.pods(), revs(r.oldRev, r.newRev)
			},
		},
		{
			name: "a template without a revision yet says the controller creates it", golden: "plan-create.txt",
			build: func() (*appsv1.StatefulSet, []*corev1.Pod, []*appsv1.ControllerRevision) {
				r := newRollout()
				return r.set, r.pods(testgen.At(r.oldRev)), revs(r.oldRev)
			},
		},
		{
			name: "after undo the broken pod still blocks (upstream #67250)", golden: "plan-forced-rollback.txt",
			build: func() (*appsv1.StatefulSet, []*corev1.Pod, []*appsv1.ControllerRevision) {
				r := newRollout()
				rolledBack := testgen.StatefulSet("web", testgen.Replicas(3))
				rolledBack.Status = r.set.Status
				return rolledBack, r.pods(testgen.NotReady(testgen.Epoch)), revs(r.oldRev, r.newRev)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, pods, history := tt.build()
			res, err := revision.Resolve(set, history)
			if err != nil {
				t.Fatal(err)
			}
			plan := planner.Compute(planner.Input{Set: set, Pods: pods, Current: res.Current, Update: res.Update, CollisionCount: res.CollisionCount, Now: now})
			var b strings.Builder
			RenderPlan(&b, NewPlanReport(set, res, history, plan), now)
			golden.Check(t, tt.golden, b.String())
		})
	}
}

func revs(r ...*appsv1.ControllerRevision) []*appsv1.ControllerRevision { return r }
