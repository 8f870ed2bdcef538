package planner

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// A hold is the failure policy's decision on a failed rollout, recorded
// in status and read back as an input: the plan targets the hold's
// revision instead of the spec's while the spec's template still maps to
// the revision that failed (see v1alpha1.RolloutHold). The planner
//  1. finds the hold in force (ActiveHold): the last status's, for the
//     spec's revision, not released by v1alpha1.ReleaseHoldAnnotation;
//  2. targets its revision (a RolledBack hold runs the last good
//     revision's template) and, for a Paused hold, pauses the rollout
//     (holdTarget);
//  3. in extend, records a new hold when the rollout fails (onFailure),
//     ends one whose spec revision changed or that was released, and
//     reports both in condition Held and in an event (HoldEvent).
// The spec is never written: a re-apply of the same manifest keeps the
// hold, a new revision ends it.

// Event reasons of holds.
const (
	EventRolledBack       = "RolledBack"
	EventRolloutPaused    = "RolloutPaused"
	EventRolloutHoldEnded = "RolloutHoldEnded"
)

// ConditionHeld is the condition that says whether a hold is in force.
const ConditionHeld = v1alpha1.ConditionHeld

// ActiveHold is the hold in force for an extended set whose spec's
// template maps to revision update: the hold of e's last status when it
// names update as the failed revision, e.ReleaseHold does not name it and
// the failure policy still holds (Pause or Rollback); nil otherwise (and
// for an apps/v1 set, whose e is nil).
func ActiveHold(e *Extended, update string) *Hold {
	if e == nil || e.Last.Hold == nil || !holds(e.OnFailure) {
		return nil
	}
	h := e.Last.Hold
	if h.FailedRevision != update || (e.ReleaseHold != "" && e.ReleaseHold == h.ID) {
		return nil
	}
	return h
}

// RolloutTarget is the revision an extended set rolls its pods to when
// its spec's template maps to update: the revision of the hold in force,
// else update.
func RolloutTarget(e *Extended, update string) string {
	if h := ActiveHold(e, update); h != nil {
		return h.Revision
	}
	return update
}

// holdTarget returns the revision the plan targets, given upd, the
// revision of the spec's template: the hold's revision while a hold is in
// force, upd otherwise. A Paused hold pauses the rollout; so does a hold
// whose revision is gone, which is reported.
func (p *planner) holdTarget(upd *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	if p.ext == nil || upd == nil {
		return upd
	}
	p.hold = ActiveHold(p.ext, upd.Name)
	if p.hold == nil {
		return upd
	}
	if p.hold.Action == v1alpha1.HoldPaused {
		p.pauseForHold()
	}
	if p.hold.Revision == upd.Name {
		return upd
	}
	for _, rev := range append([]*appsv1.ControllerRevision{p.in.Current}, p.in.Observed.Revisions...) {
		if rev != nil && rev.Name == p.hold.Revision {
			return rev
		}
	}
	p.warn(ReasonMissingRevision, "StatefulSet/"+p.set.Name, fmt.Sprintf(
		"revision %s, which the hold %s runs instead of %s, is gone; the rollout of %s is paused instead", p.hold.Revision, p.hold.ID, upd.Name, upd.Name))
	p.pauseForHold()
	return upd
}

// pauseForHold pauses the plan's rollout (paused).
func (p *planner) pauseForHold() { p.holdPaused = true }

// holds reports whether failure policy f records holds.
func holds(f v1alpha1.FailurePolicy) bool {
	return f == v1alpha1.FailurePause || f == v1alpha1.FailureRollback
}

// holdEnded says how the last status's hold ended in this plan:
// v1alpha1.HoldSpecChanged, HoldPolicyChanged or HoldReleased, "" when it
// did not.
func (p *planner) holdEnded() string {
	last := p.ext.Last.Hold
	switch {
	case last == nil || p.hold != nil:
		return ""
	case p.in.Update != nil && last.FailedRevision != p.in.Update.Name:
		return v1alpha1.HoldSpecChanged
	case !holds(p.ext.OnFailure):
		return v1alpha1.HoldPolicyChanged
	}
	return v1alpha1.HoldReleased
}

// retrySince is when the rollout's current attempt began, if a hold
// ended: a pod failure that began before it was judged already, and does
// not fail the new attempt (the pod is being replaced, or the deadline
// judges it). Zero when no hold ended.
func (p *planner) retrySince() time.Time {
	if p.holdEnded() != "" {
		return p.in.Now
	}
	if c := meta.FindStatusCondition(p.ext.Last.Conditions, ConditionHeld); c != nil && c.Status == metav1.ConditionFalse {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// newHold records the failure policy's decision in x and returns the
// event that reports it.
func (p *planner) newHold(x *ExtendedStatus, action v1alpha1.HoldAction, revision, why string) *HoldEvent {
	failed := p.update
	if p.in.Update != nil {
		failed = p.in.Update.Name
	}
	now := p.in.Now
	x.Hold = &Hold{ID: failed + "@" + now.UTC().Format(time.RFC3339Nano), Action: action, FailedRevision: failed,
		Revision: revision, Reason: why, Time: now}
	if action == v1alpha1.HoldRolledBack {
		return &HoldEvent{Warning: true, Reason: EventRolledBack, Message: fmt.Sprintf(
			"rollout of revision %s failed: %s; rolling back to %s: the spec is not changed, and %s stays held until its template changes or the hold %s is released",
			failed, why, revision, failed, x.Hold.ID)}
	}
	return &HoldEvent{Warning: true, Reason: EventRolloutPaused, Message: fmt.Sprintf(
		"%s; the rollout is held where it is: the spec is not changed, and no pod is updated until its template changes or the hold %s is released",
		why, x.Hold.ID)}
}

// endedEvent reports the end of the last status's hold, if it ended in
// this plan.
func (p *planner) endedEvent() *HoldEvent {
	last := p.ext.Last.Hold
	switch p.holdEnded() {
	case v1alpha1.HoldSpecChanged:
		return &HoldEvent{Reason: EventRolloutHoldEnded, Message: fmt.Sprintf(
			"the hold %s ended: the spec's template is now revision %s", last.ID, p.in.Update.Name)}
	case v1alpha1.HoldReleased:
		return &HoldEvent{Reason: EventRolloutHoldEnded, Message: fmt.Sprintf(
			"the hold %s was released (%s): revision %s rolls out again", last.ID, v1alpha1.ReleaseHoldAnnotation, last.FailedRevision)}
	case v1alpha1.HoldPolicyChanged:
		return &HoldEvent{Reason: EventRolloutHoldEnded, Message: fmt.Sprintf(
			"the hold %s ended: onFailure is %s; revision %s rolls out again", last.ID, p.ext.OnFailure, last.FailedRevision)}
	}
	return nil
}

// heldCondition sets condition Held: True while a hold is in force, False
// from the plan that ends one, left as it is otherwise (absent on a set
// that never had one).
func (p *planner) heldCondition(x ExtendedStatus, set func(string, metav1.ConditionStatus, string, string)) {
	if h := x.Hold; h != nil {
		set(ConditionHeld, metav1.ConditionTrue, string(h.Action), holdWords(h))
		return
	}
	switch p.holdEnded() {
	case v1alpha1.HoldSpecChanged:
		set(ConditionHeld, metav1.ConditionFalse, v1alpha1.HoldSpecChanged, fmt.Sprintf(
			"the hold of revision %s ended: the spec's template is now revision %s", p.ext.Last.Hold.FailedRevision, p.in.Update.Name))
	case v1alpha1.HoldReleased:
		set(ConditionHeld, metav1.ConditionFalse, v1alpha1.HoldReleased, fmt.Sprintf(
			"the hold of revision %s was released: it rolls out again", p.ext.Last.Hold.FailedRevision))
	case v1alpha1.HoldPolicyChanged:
		set(ConditionHeld, metav1.ConditionFalse, v1alpha1.HoldPolicyChanged, fmt.Sprintf(
			"the hold of revision %s ended: onFailure is %s, which holds nothing", p.ext.Last.Hold.FailedRevision, p.ext.OnFailure))
	}
}

// holdWords says what a hold does, for its condition.
func holdWords(h *Hold) string {
	if h.Action == v1alpha1.HoldRolledBack {
		return fmt.Sprintf("the rollout of revision %s failed (%s); the set runs revision %s until the spec's template changes or the hold is released",
			h.FailedRevision, h.Reason, h.Revision)
	}
	return fmt.Sprintf("the rollout of revision %s failed (%s); it is held where it is, at revision %s, until the spec's template changes or the hold is released",
		h.FailedRevision, h.Reason, h.Revision)
}
