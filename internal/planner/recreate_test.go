package planner_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestRecreateAppsV1(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Recreate())
	par := rollout(testgen.Replicas(3), testgen.Recreate(), testgen.Parallel())
	runScenarios(t, []scenario{{
		name: "every old pod is deleted at once, in slow-start batches, even under OrderedReady",
		f:    f,
		pods: f.pods(0, 1, 2),
		steps: []string{
			"recreate*1: DeletePod web-0", "recreate*2: DeletePod web-1", "recreate*2: DeletePod web-2",
		},
	}, {
		name:  "condemned old pods go too, and no pod is created while one is left",
		f:     rollout(testgen.Replicas(2), testgen.Recreate()),
		pods:  with(f.pods(0, 2)),
		steps: []string{"recreate*1: DeletePod web-0", "recreate*2: DeletePod web-2"},
	}, {
		name: "the batches count every ordinal, missing ones too, then the condemned pods, as upstream counts them",
		f:    rollout(testgen.Replicas(5), testgen.Recreate()),
		pods: f.pods(0, 3, 7),
		// Places 0 (web-0), 1-2 (missing web-1, web-2), 3-6 (web-3, web-4
		// missing, condemned web-7 at place 5 after the five ordinals).
		steps: []string{"recreate*1: DeletePod web-0", "recreate*3: DeletePod web-3", "recreate*3: DeletePod web-7"},
	}, {
		name:  "a terminating old pod is waited for, and nothing is created meanwhile",
		f:     f,
		pods:  []*corev1.Pod{f.pod(1, testgen.Terminating(now))},
		waits: []string{"web-1: Terminating"},
	}, {
		name:  "once every old pod is gone, OrderedReady creates the first pod",
		f:     f,
		steps: []string{"replicas: CreatePod web-0 at update"},
	}, {
		name:  "once every old pod is gone, Parallel creates them all",
		f:     par,
		steps: []string{"replicas*1: CreatePod web-0 at update", "replicas*2: CreatePod web-1 at update", "replicas*2: CreatePod web-2 at update"},
	}, {
		name:  "new pods are never deleted, and the missing ones are created",
		f:     par,
		pods:  []*corev1.Pod{par.updated(0)},
		steps: []string{"replicas*2: CreatePod web-1 at update", "replicas*2: CreatePod web-2 at update"},
	}, {
		name: "a pod that is not yet running (no phase) is neither deleted nor counted as old",
		f:    par,
		pods: []*corev1.Pod{par.pod(0, testgen.NoPhase()), par.updated(1)},
		steps: []string{
			"replicas*2: CreatePod web-2 at update",
		},
	}})
}

func TestRecreateAppsV1StatusAndCondition(t *testing.T) {
	f := rollout(testgen.Replicas(2), testgen.Recreate())
	progressing := func(plan planner.Plan) *appsv1.StatefulSetCondition {
		for i, c := range plan.Status.Conditions {
			if c.Type == appsv1.StatefulSetProgressing {
				return &plan.Status.Conditions[i]
			}
		}
		return nil
	}
	t.Run("deleting old pods says so, and the deleted pods still count as current", func(t *testing.T) {
		plan := compute(f.input(f.pods(0, 1)))
		c := progressing(plan)
		if c == nil || c.Status != corev1.ConditionTrue || c.Reason != "RecreateInProgress" || c.Message != "Deleting old revision pods" || !c.LastTransitionTime.Time.Equal(now) {
			t.Errorf("Progressing = %+v, want True RecreateInProgress \"Deleting old revision pods\" at now", c)
		}
		if plan.Status.CurrentReplicas != 2 {
			t.Errorf("currentReplicas = %d, want 2 (upstream counts a pod until the API shows it terminating)", plan.Status.CurrentReplicas)
		}
	})
	t.Run("once the old pods are gone it waits for the new ones, keeping the transition time", func(t *testing.T) {
		in := f.input(nil)
		earlier := metav1.NewTime(now.Add(-time.Minute))
		in.Set = f.set.DeepCopy()
		in.Set.Status.Conditions = []appsv1.StatefulSetCondition{
			{Type: "Other", Status: corev1.ConditionTrue, Reason: "Theirs"},
			{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionTrue, Reason: "RecreateInProgress", Message: "Deleting old revision pods", LastTransitionTime: earlier},
		}
		plan := compute(in)
		want := []appsv1.StatefulSetCondition{
			{Type: "Other", Status: corev1.ConditionTrue, Reason: "Theirs"},
			{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionTrue, Reason: "RecreateInProgress", Message: "Waiting for new-revision pods to be created", LastTransitionTime: earlier},
		}
		if diff := cmp.Diff(want, plan.Status.Conditions); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
	})
	t.Run("all new pods ready: the revision is promoted and the condition says completed", func(t *testing.T) {
		in := f.input([]*corev1.Pod{f.updated(0), f.updated(1)})
		in.Set = f.set.DeepCopy()
		in.Set.Status.Conditions = []appsv1.StatefulSetCondition{{Type: appsv1.StatefulSetProgressing, Status: corev1.ConditionTrue, Reason: "RecreateInProgress", Message: "Waiting for new-revision pods to be created"}}
		plan := compute(in)
		c := progressing(plan)
		if c == nil || c.Status != corev1.ConditionFalse || c.Reason != "RecreateCompleted" || c.Message != "All pods recreated successfully" {
			t.Errorf("Progressing = %+v, want False RecreateCompleted", c)
		}
		if plan.Status.CurrentRevision != f.upd.Name {
			t.Errorf("currentRevision = %s, want the update revision %s", plan.Status.CurrentRevision, f.upd.Name)
		}
	})
	t.Run("a set that never had the condition does not get a completed one", func(t *testing.T) {
		s := steady(testgen.Replicas(2), testgen.Recreate())
		if plan := compute(s.input(s.pods(0, 1))); len(plan.Status.Conditions) != 0 {
			t.Errorf("conditions = %+v, want none", plan.Status.Conditions)
		}
	})
	t.Run("other strategies never touch the condition", func(t *testing.T) {
		r := rollout(testgen.Replicas(2))
		if plan := compute(r.input(r.pods(0, 1))); len(plan.Status.Conditions) != 0 {
			t.Errorf("conditions = %+v, want none", plan.Status.Conditions)
		}
	})
}

func TestRecreateAppsV1WithTheGateOff(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Recreate())
	in := f.input(f.pods(0, 1)) // web-2 missing: not even that is created
	in.Set.Namespace = "apps"
	in.Release.RecreateGateOff = true
	plan := compute(in)
	if len(plan.Steps) != 0 || !plan.KeepStatus {
		t.Errorf("steps %v, keep status %v: want no step and no status write", f.summary(plan), plan.KeepStatus)
	}
	want := "statefulset apps/web uses Recreate strategy but feature gate StatefulSetRecreateStrategy is disabled"
	if len(plan.Warnings) != 1 || plan.Warnings[0].Reason != "UnknownStrategy" || plan.Warnings[0].Event != want {
		t.Errorf("warnings = %+v, want one UnknownStrategy with upstream's message %q", plan.Warnings, want)
	}
	t.Run("with the gate on the same set is recreated", func(t *testing.T) {
		in.Release.RecreateGateOff = false
		if plan := compute(in); len(plan.Steps) == 0 || plan.KeepStatus || len(plan.Warnings) != 0 {
			t.Errorf("steps %v, keep status %v, warnings %+v", f.summary(plan), plan.KeepStatus, plan.Warnings)
		}
	})
}

// A Parallel set scales down before it creates: a pod that cannot be
// created (a ResourceQuota refusing it) must not hold up the deletes that
// would free the quota.
func TestParallelScalesDownBeforeCreating(t *testing.T) {
	f := steady(testgen.Replicas(3), testgen.Parallel())
	ordered := steady(testgen.Replicas(3))
	runScenarios(t, []scenario{{
		name:  "Parallel: the condemned pods' deletes come before the missing pods' creates",
		f:     f,
		pods:  f.pods(0, 3, 4),
		steps: []string{"scale down*1: DeletePod web-4", "scale down*2: DeletePod web-3", "replicas*2: CreatePod web-1 at current", "replicas*2: CreatePod web-2 at current"},
	}, {
		name:  "OrderedReady keeps upstream's order: the range first, then one pod down",
		f:     ordered,
		pods:  ordered.pods(0, 3, 4),
		steps: []string{"replicas: CreatePod web-1 at current"},
	}})
}
