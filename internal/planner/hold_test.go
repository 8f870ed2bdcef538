package planner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// holdFixture is a rollout of app:2 (update) that failed after app:1
// (current) completed, with the failure policy's hold on it.
type holdFixture struct {
	fixture
	hold *planner.Hold
	last planner.ExtendedStatus
}

func heldRollout(action v1alpha1.HoldAction) holdFixture {
	f := rollout(testgen.Replicas(3))
	h := &planner.Hold{ID: f.upd.Name + "@1", Action: action, FailedRevision: f.upd.Name, Revision: f.cur.Name,
		Reason: "web-2 at revision " + f.upd.Name + ": Failed", Time: now.Add(-time.Minute)}
	if action == v1alpha1.HoldPaused {
		h.Revision = f.upd.Name
	}
	last := planner.ExtendedStatus{UpdateRevision: h.Revision, LastProgress: now.Add(-time.Minute), LastCompletedRevision: f.cur.Name, Hold: h}
	return holdFixture{fixture: f, hold: h, last: last}
}

// plan plans the fixture under onFailure policy, with its last status
// changed by change.
func (f holdFixture) plan(policy v1alpha1.FailurePolicy, change func(*planner.Extended), pods ...*corev1.Pod) planner.Plan {
	e := extended(func(e *planner.Extended) {
		e.OnFailure, e.Last = policy, f.last
		observedOf(e).Revisions = []*appsv1.ControllerRevision{f.cur, f.upd}
	})
	if change != nil {
		change(e)
	}
	return f.ext(e, pods...)
}

func TestARollbackHoldRunsTheLastGoodRevisionWhileTheSpecNamesTheFailedOne(t *testing.T) {
	f := heldRollout(v1alpha1.HoldRolledBack)
	broken := f.updated(2, testgen.NotReady(now.Add(-time.Minute)))
	plan := f.plan(v1alpha1.FailureRollback, nil, f.pod(0), f.pod(1), broken)
	// web-2 runs the failed revision, now an old one, and is not Ready:
	// self-healing replaces it.
	if diff := cmp.Diff([]string{"replicas: DeletePod web-2"}, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if plan.Status.UpdateRevision != f.cur.Name {
		t.Errorf("update revision %s, want the held %s", plan.Status.UpdateRevision, f.cur.Name)
	}
	x := plan.Extended
	if x.Status.Hold != f.hold || x.HoldEvent != nil {
		t.Errorf("hold %+v, event %+v; want the same hold, no event", x.Status.Hold, x.HoldEvent)
	}
	c := condition(x.Status.Conditions, planner.ConditionHeld)
	if c.Status != metav1.ConditionTrue || c.Reason != string(v1alpha1.HoldRolledBack) || !strings.Contains(c.Message, "runs revision "+f.cur.Name) {
		t.Errorf("Held %s/%s %q, want True/RolledBack naming %s", c.Status, c.Reason, c.Message, f.cur.Name)
	}
	if c := condition(x.Status.Conditions, planner.ConditionProgressing); c.Reason != planner.ReasonRollingBack {
		t.Errorf("Progressing reason %s while pods go back, want RollingBack", c.Reason)
	}

	missing := f.plan(v1alpha1.FailureRollback, nil, f.pod(0), f.pod(1))
	if diff := cmp.Diff([]string{"replicas: CreatePod web-2 at current"}, f.summary(missing)); diff != "" {
		t.Errorf("the missing pod (-want +got):\n%s", diff)
	}

	// A re-apply of the same manifest, even one that bumps the generation
	// (another field changed), maps to the same revision: the hold stays.
	f.set = f.set.DeepCopy()
	f.set.Generation++
	again := f.plan(v1alpha1.FailureRollback, nil, f.pod(0), f.pod(1), f.pod(2))
	if again.Extended.Status.Hold != f.hold || len(again.Steps) != 0 || again.Extended.HoldEvent != nil {
		t.Errorf("after a re-apply: hold %+v, steps %v, event %+v; want the hold kept and nothing to do", again.Extended.Status.Hold, f.summary(again), again.Extended.HoldEvent)
	}
	if c := condition(again.Extended.Status.Conditions, planner.ConditionProgressing); c.Status != metav1.ConditionTrue || c.Reason != planner.ReasonRolloutComplete {
		t.Errorf("Progressing %s/%s once back at %s, want True/RolloutComplete", c.Status, c.Reason, f.cur.Name)
	}
}

func TestAPauseHoldReplacesNoPodForTheUpdate(t *testing.T) {
	f := heldRollout(v1alpha1.HoldPaused)
	stale := f.updated(2, testgen.NotReady(now.Add(-time.Hour)))
	plan := f.plan(v1alpha1.FailurePause, nil, f.pod(0), f.pod(1), stale)
	if len(plan.Steps) != 0 || plan.Extended.Status.Hold != f.hold || plan.Extended.HoldEvent != nil {
		t.Errorf("steps %v, hold %+v, event %+v; want nothing done and the hold kept", f.summary(plan), plan.Extended.Status.Hold, plan.Extended.HoldEvent)
	}
	c := condition(plan.Extended.Status.Conditions, planner.ConditionProgressing)
	if c.Reason != planner.ReasonRolloutPaused || !strings.Contains(c.Message, "held paused") {
		t.Errorf("Progressing %s %q, want RolloutPaused saying it is held", c.Reason, c.Message)
	}
	missing := f.plan(v1alpha1.FailurePause, nil, f.pod(0), stale)
	if diff := cmp.Diff([]string{"replicas: CreatePod web-1 at current"}, f.summary(missing)); diff != "" {
		t.Errorf("a missing pod under a pause hold (-want +got):\n%s", diff)
	}
}

// Setting onFailure to Report ends a hold: the policy no longer asks for
// one, and the spec's revision rolls out.
func TestReportEndsAHold(t *testing.T) {
	f := heldRollout(v1alpha1.HoldRolledBack)
	plan := f.plan(v1alpha1.FailureReport, nil, f.pod(0), f.pod(1), f.pod(2))
	x := plan.Extended
	if x.Status.Hold != nil || plan.Status.UpdateRevision != f.upd.Name {
		t.Errorf("hold %+v, update revision %s; want none, %s", x.Status.Hold, plan.Status.UpdateRevision, f.upd.Name)
	}
	if c := condition(x.Status.Conditions, planner.ConditionHeld); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.HoldPolicyChanged {
		t.Errorf("Held %s/%s, want False/PolicyChanged", c.Status, c.Reason)
	}
}

func TestANewSpecRevisionEndsTheHold(t *testing.T) {
	f := heldRollout(v1alpha1.HoldRolledBack)
	f.hold.FailedRevision = "web-broken"
	f.last.UpdateRevision = f.cur.Name
	plan := f.plan(v1alpha1.FailureRollback, nil, f.pod(0), f.pod(1), f.pod(2))
	if diff := cmp.Diff([]string{"rolling update: DeletePod web-2"}, f.summary(plan)); diff != "" {
		t.Errorf("the new revision rolls out (-want +got):\n%s", diff)
	}
	x := plan.Extended
	if x.Status.Hold != nil || x.Status.UpdateRevision != f.upd.Name || !x.Status.LastProgress.Equal(now) {
		t.Errorf("hold %+v, update revision %s, last progress %s; want no hold, %s, now", x.Status.Hold, x.Status.UpdateRevision, x.Status.LastProgress, f.upd.Name)
	}
	if c := condition(x.Status.Conditions, planner.ConditionHeld); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.HoldSpecChanged {
		t.Errorf("Held %s/%s, want False/SpecChanged", c.Status, c.Reason)
	}
	if ev := x.HoldEvent; ev == nil || ev.Warning || ev.Reason != planner.EventRolloutHoldEnded || !strings.Contains(ev.Message, f.upd.Name) {
		t.Errorf("event %+v, want a Normal RolloutHoldEnded naming %s", ev, f.upd.Name)
	}
}

// A person releases a hold by naming it: the failed revision rolls out
// again. A pod that failed before the release is replaced, not judged:
// the same sync that retries must not hold the rollout again (the chaos
// harness's "paused again after it was resumed"). A failure after the
// release makes a new hold, which the same release does not release.
func TestAReleasedHoldIsNotHeldAgainByThePodItRetries(t *testing.T) {
	f := heldRollout(v1alpha1.HoldPaused)
	failed := f.updated(2, testgen.Failed(), testgen.CreatedAt(now.Add(-2*time.Minute)))
	release := func(e *planner.Extended) { e.ReleaseHold = f.hold.ID }
	plan := f.plan(v1alpha1.FailurePause, release, f.pod(0), f.pod(1), failed)
	if diff := cmp.Diff([]string{"replicas: DeletePod web-2"}, f.summary(plan)); diff != "" {
		t.Errorf("the failed pod is retried (-want +got):\n%s", diff)
	}
	x := plan.Extended
	if x.Status.Hold != nil {
		t.Fatalf("hold %+v in the sync that releases it, want none", x.Status.Hold)
	}
	if ev := x.HoldEvent; ev == nil || ev.Reason != planner.EventRolloutHoldEnded || !strings.Contains(ev.Message, "released") {
		t.Errorf("event %+v, want RolloutHoldEnded saying released", ev)
	}
	released := condition(x.Status.Conditions, planner.ConditionHeld)
	if released.Status != metav1.ConditionFalse || released.Reason != v1alpha1.HoldReleased {
		t.Errorf("Held %s/%s, want False/Released", released.Status, released.Reason)
	}

	next := f.last
	next.Hold, next.Conditions, next.LastProgress = nil, x.Status.Conditions, now
	after := func(e *planner.Extended) { release(e); e.Last = next }
	if h := f.plan(v1alpha1.FailurePause, after, f.pod(0), f.pod(1), failed).Extended.Status.Hold; h != nil {
		t.Errorf("hold %+v from the pod that failed before the release, want none", h)
	}
	later := f.updated(2, testgen.Failed(), testgen.CreatedAt(now.Add(time.Second)))
	again := f.plan(v1alpha1.FailurePause, after, f.pod(0), f.pod(1), later)
	h := again.Extended.Status.Hold
	if !isHold(h, v1alpha1.HoldPaused, f.upd.Name, f.upd.Name) || h.ID == f.hold.ID {
		t.Fatalf("hold %+v after a new failure, want a new Paused hold", h)
	}
	if planner.ActiveHold(&planner.Extended{OnFailure: v1alpha1.FailurePause, Last: planner.ExtendedStatus{Hold: h}, ReleaseHold: f.hold.ID}, f.upd.Name) != h {
		t.Errorf("the first release also releases the new hold %s", h.ID)
	}
}

func TestAHoldWhoseRevisionIsGonePausesAndSaysSo(t *testing.T) {
	f := heldRollout(v1alpha1.HoldRolledBack)
	f.hold.Revision = "web-gone"
	plan := f.plan(v1alpha1.FailureRollback, nil, f.pod(0), f.pod(1), f.updated(2, testgen.NotReady(now)))
	if len(plan.Steps) != 0 || plan.Status.UpdateRevision != f.upd.Name {
		t.Errorf("steps %v, update revision %s; want none, %s", f.summary(plan), plan.Status.UpdateRevision, f.upd.Name)
	}
	if diff := cmp.Diff([]string{"MissingRevision StatefulSet/web"}, warningReasons(plan)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// A rollback that restored a revision which fails too is held paused:
// the controller never rolls back twice on its own.
func TestARollbackThatFailsTooIsHeldPaused(t *testing.T) {
	f := heldRollout(v1alpha1.HoldRolledBack)
	f.last.LastCompletedRevision = "web-older"
	broken := f.pod(2, testgen.Failed(), testgen.CreatedAt(now))
	plan := f.plan(v1alpha1.FailureRollback, nil, f.pod(0), f.pod(1), broken)
	h := plan.Extended.Status.Hold
	if !isHold(h, v1alpha1.HoldPaused, f.upd.Name, f.cur.Name) || h.ID == f.hold.ID || !strings.Contains(h.Reason, "paused instead of rolling back again") {
		t.Errorf("hold %+v, want a new Paused hold of %s at %s", h, f.upd.Name, f.cur.Name)
	}
	if ev := plan.Extended.HoldEvent; ev == nil || ev.Reason != planner.EventRolloutPaused {
		t.Errorf("event %+v, want RolloutPaused", ev)
	}
}

func TestRolloutTarget(t *testing.T) {
	h := &planner.Hold{ID: "a@1", Action: v1alpha1.HoldRolledBack, FailedRevision: "web-b", Revision: "web-a"}
	held := func(release string) *planner.Extended {
		return &planner.Extended{OnFailure: v1alpha1.FailureRollback, Last: planner.ExtendedStatus{Hold: h}, ReleaseHold: release}
	}
	for _, tt := range []struct {
		name    string
		e       *planner.Extended
		update  string
		want    string
		holding bool
	}{
		{"an apps/v1 set has no hold", nil, "web-b", "web-b", false},
		{"the hold of the spec's revision is in force", held(""), "web-b", "web-a", true},
		{"another spec revision is not held", held(""), "web-c", "web-c", false},
		{"a released hold is not in force", held("a@1"), "web-b", "web-b", false},
		{"a release of another hold does not release it", held("a@0"), "web-b", "web-a", true},
		{"onFailure Report holds nothing", &planner.Extended{OnFailure: v1alpha1.FailureReport, Last: planner.ExtendedStatus{Hold: h}}, "web-b", "web-b", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := planner.RolloutTarget(tt.e, tt.update); got != tt.want {
				t.Errorf("RolloutTarget = %s, want %s", got, tt.want)
			}
			if got := planner.ActiveHold(tt.e, tt.update) != nil; got != tt.holding {
				t.Errorf("ActiveHold in force %t, want %t", got, tt.holding)
			}
		})
	}
}
