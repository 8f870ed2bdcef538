package planner_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

var ostsKind = schema.GroupVersionKind{Group: "apps.ordinal.dev", Version: "v1alpha1", Kind: "StatefulSet"}

// extended returns the extended kind's defaults, changed by opts.
func extended(opts ...func(*planner.Extended)) *planner.Extended {
	e := &planner.Extended{Owner: ostsKind, SelfHealing: true, OnFailure: v1alpha1.FailureReport,
		ProgressDeadline: 10 * time.Minute, MaxUnavailable: 1}
	for _, o := range opts {
		o(e)
	}
	return e
}

func (f fixture) ext(e *planner.Extended, pods ...*corev1.Pod) planner.Plan {
	in := f.input(pods)
	in.Extended = e
	return compute(in)
}

func TestSelfHealing(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	stuck := f.pod(2, testgen.NotReady(now))
	t.Run("an old-revision pod that is not Ready, which holds an OrderedReady rollout, is replaced", func(t *testing.T) {
		plan := f.ext(extended(), f.pod(0), f.pod(1), stuck)
		if diff := cmp.Diff([]string{"replicas: DeletePod web-2"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if got := plan.Status.CurrentReplicas; got != 2 {
			t.Errorf("currentReplicas %d, want 2 (web-2 leaves it)", got)
		}
	})
	t.Run("apps/v1 and a Disabled set wait on it, as upstream does", func(t *testing.T) {
		for name, e := range map[string]*planner.Extended{"apps/v1": nil, "Disabled": extended(func(e *planner.Extended) { e.SelfHealing = false })} {
			if plan := f.ext(e, f.pod(0), f.pod(1), stuck); len(plan.Steps) != 0 {
				t.Errorf("%s: want no action, got %v", name, f.summary(plan))
			}
		}
	})
	t.Run("a pod at the update revision is never replaced", func(t *testing.T) {
		if plan := f.ext(extended(), f.pod(0), f.pod(1), f.updated(2, testgen.NotReady(now))); len(plan.Steps) != 0 {
			t.Errorf("want no action, got %v", f.summary(plan))
		}
	})
	t.Run("a Ready pod is never replaced, even when not yet Available", func(t *testing.T) {
		slow := rollout(testgen.Replicas(3), testgen.MinReadySeconds(600))
		if plan := slow.ext(extended(), slow.pod(0), slow.pod(1), slow.pod(2, testgen.Ready(now))); len(plan.Steps) != 0 {
			t.Errorf("want no action, got %v", slow.summary(plan))
		}
	})
	t.Run("a pod below the partition, or of a paused set, is left alone", func(t *testing.T) {
		canary := rollout(testgen.Replicas(3), testgen.Partition(2))
		if plan := canary.ext(extended(), canary.pod(0), canary.pod(1, testgen.NotReady(now)), canary.pod(2)); len(plan.Steps) != 0 {
			t.Errorf("below the partition: want no action, got %v", canary.summary(plan))
		}
		if plan := f.ext(extended(func(e *planner.Extended) { e.Paused = true }), f.pod(0), f.pod(1), stuck); len(plan.Steps) != 0 {
			t.Errorf("paused: want no action, got %v", f.summary(plan))
		}
	})
}

func TestRecreateStrategy(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.NoRollingUpdate())
	recreate := extended(func(e *planner.Extended) { e.Recreate = true })
	t.Run("every old pod is deleted at once and nothing is created", func(t *testing.T) {
		plan := f.ext(recreate, f.pod(0), f.pod(2))
		want := []string{"recreate: DeletePod web-0", "recreate: DeletePod web-2"}
		if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	t.Run("while an old pod terminates, nothing is created", func(t *testing.T) {
		plan := f.ext(recreate, f.pod(0, testgen.Terminating(now)))
		if len(plan.Steps) != 0 || len(plan.Waits) != 1 {
			t.Errorf("want one wait and no action, got %v and %v", f.summary(plan), waitLines(plan))
		}
	})
	t.Run("once all are gone, pods are created at the update revision in order", func(t *testing.T) {
		plan := f.ext(recreate)
		if diff := cmp.Diff([]string{"replicas: CreatePod web-0 at update"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	// Chaos seeds 7701 and 8137: a scale to 0 that meets a new revision
	// under OrderedReady. Upstream 1.37's Recreate deletes old condemned
	// pods at once too, before its scale-down pass.
	t.Run("condemned pods of an old revision go at once, out of scale-down order", func(t *testing.T) {
		zero := rollout(testgen.Replicas(0), testgen.NoRollingUpdate())
		plan := zero.ext(recreate, zero.pod(0), zero.pod(1), zero.pod(2))
		want := []string{"recreate: DeletePod web-2", "recreate: DeletePod web-1", "recreate: DeletePod web-0"}
		if diff := cmp.Diff(want, zero.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	t.Run("with no new revision, scale-down keeps its order", func(t *testing.T) {
		zero := steady(testgen.Replicas(0), testgen.NoRollingUpdate())
		plan := zero.ext(recreate, zero.pods(0, 1, 2)...)
		if diff := cmp.Diff([]string{"scale down: DeletePod web-2"}, zero.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}

func TestPodsOfAnExtendedSetAreOwnedByIt(t *testing.T) {
	f := steady(testgen.Replicas(1), testgen.ClaimTemplates("data"), testgen.Retention(del, retain))
	plan := f.ext(extended())
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if a.Kind == planner.CreatePod {
				if ref := metav1.GetControllerOf(a.Pod); ref == nil || ref.APIVersion != "apps.ordinal.dev/v1alpha1" || ref.Kind != "StatefulSet" {
					t.Errorf("pod owner %+v, want the extended kind", ref)
				}
			}
		}
	}
	claim := testgen.Claim(f.set, "data", 0)
	in := f.input(f.pods(0), claim)
	in.Extended = extended()
	plan = compute(in)
	var refs []metav1.OwnerReference
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if a.Kind == planner.UpdateClaim {
				refs = a.Claim.OwnerReferences
			}
		}
	}
	if len(refs) != 1 || refs[0].APIVersion != "apps.ordinal.dev/v1alpha1" {
		t.Errorf("claim owners %+v, want the extended set (whenDeleted Delete)", refs)
	}
}

func TestClassify(t *testing.T) {
	f := steady()
	waiting := func(reason string, restarts int32) testgen.PodOption {
		return func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = nil
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", RestartCount: restarts,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "m"}}}}
		}
	}
	tests := []struct {
		name      string
		pod       *corev1.Pod
		reason    string
		permanent bool
	}{
		{"an available pod is not a failure", f.pod(0), "", false},
		{"a Failed pod is permanent", f.pod(0, testgen.Failed()), "Failed", true},
		{"an image that cannot be pulled is permanent once the kubelet backs off", f.pod(0, waiting("ImagePullBackOff", 0)), "ImagePullBackOff", true},
		{"a first pull error is not yet", f.pod(0, waiting("ErrImagePull", 0)), "ErrImagePull", false},
		{"an invalid image name is permanent", f.pod(0, waiting("InvalidImageName", 0)), "InvalidImageName", true},
		{"a missing config map or secret is permanent", f.pod(0, waiting("CreateContainerConfigError", 0)), "CreateContainerConfigError", true},
		{"a crash loop under the restart threshold is not yet", f.pod(0, waiting("CrashLoopBackOff", 2)), "CrashLoopBackOff", false},
		{"a crash loop at the threshold is permanent", f.pod(0, waiting("CrashLoopBackOff", planner.CrashLoopRestarts)), "CrashLoopBackOff", true},
		{"a pod Running and not Ready is NotReady", f.pod(0, testgen.NotReady(now.Add(-time.Minute))), "NotReady", false},
		{"past the deadline it is NeverReady", f.pod(0, testgen.NotReady(now.Add(-time.Hour))), "NeverReady", false},
		{"a Pending pod", f.pod(0, testgen.Pending()), "Pending", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planner.Classify(tt.pod, 0, now, 30*time.Minute)
			reason, permanent := "", false
			if got != nil {
				reason, permanent = got.Reason, got.Permanent
			}
			if reason != tt.reason || permanent != tt.permanent {
				t.Errorf("Classify() = %q permanent=%v, want %q permanent=%v", reason, permanent, tt.reason, tt.permanent)
			}
		})
	}
}

func TestRolloutFailureAndItsPolicy(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	broken := f.updated(2, func(p *corev1.Pod) {
		p.Status.Conditions = nil
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}
	})
	last := planner.ExtendedStatus{UpdateRevision: f.upd.Name, UpdatedReplicas: 1, LastProgress: now.Add(-time.Minute), LastCompletedRevision: f.cur.Name}
	policy := func(p v1alpha1.FailurePolicy, l planner.ExtendedStatus) *planner.Extended {
		return extended(func(e *planner.Extended) { e.OnFailure, e.Last = p, l })
	}
	t.Run("a permanent failure at the update revision fails the rollout at once and is reported", func(t *testing.T) {
		plan := f.ext(policy(v1alpha1.FailureReport, last), f.pod(0), f.pod(1), broken)
		x := plan.Extended
		if x.Status.Hold != nil || x.HoldEvent != nil {
			t.Errorf("Report held the rollout: %+v, %+v", x.Status.Hold, x.HoldEvent)
		}
		if c := condition(x.Status.Conditions, planner.ConditionProgressing); c.Status != metav1.ConditionFalse || c.Reason != planner.ReasonRolloutFailed {
			t.Errorf("Progressing %s/%s, want False/RolloutFailed", c.Status, c.Reason)
		}
		if len(x.Status.BlockedBy) != 1 || x.Status.BlockedBy[0].Pod != "web-2" || !x.Status.BlockedBy[0].Permanent {
			t.Errorf("blockedBy %+v, want web-2, permanent", x.Status.BlockedBy)
		}
		if diff := cmp.Diff([]string{"RolloutFailed Pod/web-2"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
	t.Run("Pause holds the rollout paused at the update revision", func(t *testing.T) {
		plan := f.ext(policy(v1alpha1.FailurePause, last), f.pod(0), f.pod(1), broken)
		if h := plan.Extended.Status.Hold; !isHold(h, v1alpha1.HoldPaused, f.upd.Name, f.upd.Name) {
			t.Errorf("hold %+v, want Paused of %s at %s", h, f.upd.Name, f.upd.Name)
		}
		if ev := plan.Extended.HoldEvent; ev == nil || ev.Reason != planner.EventRolloutPaused || !ev.Warning {
			t.Errorf("event %+v, want a RolloutPaused warning", ev)
		}
	})
	t.Run("Rollback holds the failed revision, runs the last completed one and records it", func(t *testing.T) {
		plan := f.ext(policy(v1alpha1.FailureRollback, last), f.pod(0), f.pod(1), broken)
		h, r := plan.Extended.Status.Hold, plan.Extended.Status.Rollback
		if !isHold(h, v1alpha1.HoldRolledBack, f.upd.Name, f.cur.Name) || r == nil || r.From != f.upd.Name || r.To != f.cur.Name {
			t.Errorf("hold %+v, record %+v; want a rollback from %s to %s", h, r, f.upd.Name, f.cur.Name)
		}
		if ev := plan.Extended.HoldEvent; ev == nil || ev.Reason != planner.EventRolledBack || !strings.Contains(ev.Message, "rolling back to "+f.cur.Name) ||
			!strings.Contains(ev.Message, "the spec is not changed") {
			t.Errorf("event %+v, want RolledBack, rolling back to %s, the spec not changed", ev, f.cur.Name)
		}
	})
	t.Run("a rollback whose restored revision fails too pauses instead of looping", func(t *testing.T) {
		again := last
		again.Rollback = &planner.RollbackRecord{From: "web-other", To: f.upd.Name}
		plan := f.ext(policy(v1alpha1.FailureRollback, again), f.pod(0), f.pod(1), broken)
		if h := plan.Extended.Status.Hold; !isHold(h, v1alpha1.HoldPaused, f.upd.Name, f.upd.Name) {
			t.Errorf("hold %+v, want a pause", h)
		}
	})
	t.Run("with no completed revision to return to, Rollback pauses", func(t *testing.T) {
		first := last
		first.LastCompletedRevision = ""
		plan := f.ext(policy(v1alpha1.FailureRollback, first), f.pod(0), f.pod(1), broken)
		if h := plan.Extended.Status.Hold; !isHold(h, v1alpha1.HoldPaused, f.upd.Name, f.upd.Name) {
			t.Errorf("hold %+v, want a pause", h)
		}
	})
}

// The progress deadline and a finished rollout, under each failure policy.
func TestRolloutDeadlineAndCompletion(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	last := planner.ExtendedStatus{UpdateRevision: f.upd.Name, UpdatedReplicas: 1, LastProgress: now.Add(-time.Minute), LastCompletedRevision: f.cur.Name}
	policy := func(p v1alpha1.FailurePolicy, l planner.ExtendedStatus) *planner.Extended {
		return extended(func(e *planner.Extended) { e.OnFailure, e.Last = p, l })
	}
	t.Run("no progress for the deadline fails the rollout; before it, a sync is asked for at the deadline", func(t *testing.T) {
		slow := f.updated(2, testgen.NotReady(now.Add(-time.Minute)))
		stale := last
		stale.LastProgress = now.Add(-11 * time.Minute)
		plan := f.ext(policy(v1alpha1.FailureReport, stale), f.pod(0), f.pod(1), slow)
		if c := condition(plan.Extended.Status.Conditions, planner.ConditionProgressing); c.Reason != planner.ReasonProgressDeadlineExceeded {
			t.Errorf("Progressing reason %s, want ProgressDeadlineExceeded", c.Reason)
		}
		plan = f.ext(policy(v1alpha1.FailureReport, last), f.pod(0), f.pod(1), slow)
		if got, want := plan.RequeueAfter, 9*time.Minute+time.Second; got != want {
			t.Errorf("RequeueAfter %s, want %s (the deadline)", got, want)
		}
	})
	t.Run("a resumed rollout's deadline counts from the resume, not from before the pause", func(t *testing.T) {
		slow := f.updated(2, testgen.NotReady(now.Add(-time.Minute)))
		wasPaused := last
		wasPaused.LastProgress = now.Add(-11 * time.Minute)
		wasPaused.Conditions = []metav1.Condition{{Type: planner.ConditionProgressing, Status: metav1.ConditionUnknown, Reason: planner.ReasonRolloutPaused}}
		plan := f.ext(policy(v1alpha1.FailurePause, wasPaused), f.pod(0), f.pod(1), slow)
		if h := plan.Extended.Status.Hold; h != nil {
			t.Errorf("hold %+v right after a resume, want none", h)
		}
		if got := plan.Extended.Status.LastProgress; !got.Equal(now) {
			t.Errorf("last progress %s, want the resume (%s)", got, now)
		}
		still := extended(func(e *planner.Extended) { e.OnFailure, e.Last, e.Paused = v1alpha1.FailurePause, wasPaused, true })
		if got := f.ext(still, f.pod(0), f.pod(1), slow).Extended.Status.LastProgress; !got.Equal(wasPaused.LastProgress) {
			t.Errorf("while still paused, last progress %s, want it kept at %s", got, wasPaused.LastProgress)
		}
	})
	t.Run("a finished rollout is complete and available", func(t *testing.T) {
		done := last
		done.UpdatedReplicas = 3
		plan := f.ext(policy(v1alpha1.FailureRollback, done), f.updated(0), f.updated(1), f.updated(2))
		x := plan.Extended.Status
		if x.LastCompletedRevision != f.upd.Name || x.Hold != nil {
			t.Errorf("last completed %s, hold %+v", x.LastCompletedRevision, x.Hold)
		}
		for typ, want := range map[string]metav1.ConditionStatus{planner.ConditionAvailable: metav1.ConditionTrue, planner.ConditionProgressing: metav1.ConditionTrue, planner.ConditionReplicaFailure: metav1.ConditionFalse} {
			if c := condition(x.Conditions, typ); c.Status != want {
				t.Errorf("%s is %s, want %s", typ, c.Status, want)
			}
		}
	})
}

func condition(conds []metav1.Condition, typ string) metav1.Condition {
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	return metav1.Condition{}
}

// A rollout that a partition holds has done its part once every pod at or
// above the partition runs the update revision, Available: its deadline
// stands still until the partition is lowered, and counts from then.
func TestARolloutHeldAtItsPartitionDoesNotFail(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Partition(2))
	stale := planner.ExtendedStatus{UpdateRevision: f.upd.Name, UpdatedReplicas: 1, LastProgress: now.Add(-11 * time.Minute), LastCompletedRevision: f.cur.Name}
	held := extended(func(e *planner.Extended) { e.OnFailure, e.Last = v1alpha1.FailurePause, stale })
	plan := f.ext(held, f.pod(0), f.pod(1), f.updated(2))
	if h := plan.Extended.Status.Hold; h != nil {
		t.Errorf("hold %+v at the partition, want none", h)
	}
	c := condition(plan.Extended.Status.Conditions, planner.ConditionProgressing)
	if c.Status != metav1.ConditionTrue || c.Reason != planner.ReasonPartitionRolledOut {
		t.Errorf("Progressing %s/%s, want True/PartitionRolledOut", c.Status, c.Reason)
	}
	if plan.RequeueAfter != 0 {
		t.Errorf("RequeueAfter %s at the partition, want none (no deadline runs)", plan.RequeueAfter)
	}

	slow := f.updated(2, testgen.NotReady(now.Add(-time.Minute)))
	if h := f.ext(held, f.pod(0), f.pod(1), slow).Extended.Status.Hold; h == nil || h.Action != v1alpha1.HoldPaused {
		t.Errorf("hold %+v while the pod above the partition is not Ready past the deadline, want a pause", h)
	}

	lowered := rollout(testgen.Replicas(3), testgen.Partition(0))
	wasHeld := stale
	wasHeld.Conditions = []metav1.Condition{{Type: planner.ConditionProgressing, Status: metav1.ConditionTrue, Reason: planner.ReasonPartitionRolledOut}}
	e := extended(func(e *planner.Extended) { e.OnFailure, e.Last = v1alpha1.FailurePause, wasHeld })
	plan = lowered.ext(e, lowered.pod(0), lowered.pod(1), lowered.updated(2))
	if h := plan.Extended.Status.Hold; h != nil {
		t.Errorf("hold %+v right after the partition was lowered, want none", h)
	}
	if got := plan.Extended.Status.LastProgress; !got.Equal(now) {
		t.Errorf("last progress %s after the partition was lowered, want %s", got, now)
	}
}

// isHold reports whether h is a hold of action on failed that runs
// revision.
func isHold(h *planner.Hold, action v1alpha1.HoldAction, failed, revision string) bool {
	return h != nil && h.Action == action && h.FailedRevision == failed && h.Revision == revision && h.ID != ""
}

// An extended set whose revisions cannot be resolved is planned as an
// apps/v1 one is: nothing to do, and a warning that says why.
func TestAnExtendedSetWithoutRevisionsPlansNothingAndSaysWhy(t *testing.T) {
	f := rollout(testgen.Replicas(2), testgen.ClaimTemplates("data"))
	plan := compute(planner.Input{Set: f.set, Pods: f.pods(0, 1), Now: now, Extended: extended()})
	if len(plan.Steps) != 0 || !slices.Contains(warningReasons(plan), planner.ReasonMissingRevision+" StatefulSet/web") {
		t.Errorf("steps %v, warnings %v; want none and %s", f.summary(plan), warningReasons(plan), planner.ReasonMissingRevision)
	}
}
