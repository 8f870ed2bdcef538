package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Holds (updateStrategy.rollingUpdate.onFailure Pause or Rollback).
//
// When a rollout fails, the failure policy's decision is recorded in the
// set's status (status.hold), never written into its spec: the spec stays
// what its owner (a person, or a GitOps tool that re-applies it) wrote.
// The hold names the revision of the spec's template that failed and the
// revision the set runs meanwhile, and holds as long as the spec's
// revision is the failed one: a re-apply of the same manifest keeps it, so
// a failed revision is rolled back or paused once, not again after every
// apply. Any new revision in the spec (a fix, `ordinal rollout undo`, a
// new image) ends it and rolls out as usual, and so does a person who
// releases it by naming it in ReleaseHoldAnnotation (`ordinal rollout
// resume`), to try the failed revision again, or who sets onFailure to
// Report. Condition ConditionHeld says
// whether a hold is in force.

// HoldAction is what the failure policy decided for a failed rollout.
//
// +kubebuilder:validation:Enum=RolledBack;Paused
type HoldAction string

// Hold actions.
const (
	// HoldRolledBack runs the last completed revision's template again
	// (status.updateRevision names it) while the spec keeps the failed
	// one.
	HoldRolledBack HoldAction = "RolledBack"
	// HoldPaused stops the rolling update where it is, as
	// rollingUpdate.paused does: no pod is replaced for the update, and a
	// missing pod comes back at the current revision.
	HoldPaused HoldAction = "Paused"
)

// RolloutHold is the failure policy's decision on a failed rollout.
type RolloutHold struct {
	// ID names this hold among all of the set's holds: the failed revision
	// and the time of the decision, to the nanosecond.
	// ReleaseHoldAnnotation names it to release it.
	ID string `json:"id"`
	// Action is RolledBack or Paused.
	Action HoldAction `json:"action"`
	// FailedRevision is the revision of the spec's template whose rollout
	// failed. The hold lasts while the spec's template maps to it.
	FailedRevision string `json:"failedRevision"`
	// Revision is the revision the set runs while the hold lasts: the last
	// completed one after a rollback, the update revision at the failure
	// for a pause.
	Revision string `json:"revision"`
	// Reason says why the rollout failed.
	//
	// +optional
	Reason string `json:"reason,omitempty"`
	// Time is when the hold was decided.
	Time metav1.Time `json:"time"`
}

// ReleaseHoldAnnotation is the annotation that, set on an extended set to
// the ID of its status.hold, releases that hold: the controller rolls the failed
// revision out again, and a new failure makes a new hold with another ID,
// which the annotation does not release. `ordinal rollout resume` writes
// it. It is metadata, not spec: writing it changes no generation.
const ReleaseHoldAnnotation = "apps.ordinal.dev/release-hold"

// ConditionHeld is the condition type that says whether a hold is in
// force: True (reason HoldRolledBack or HoldPaused, as its action) while
// it is, False once it has ended (reason HoldSpecChanged, HoldReleased or
// HoldPolicyChanged), absent on a set that never had one.
const ConditionHeld = "Held"

// Reasons of ConditionHeld once a hold has ended.
const (
	// HoldSpecChanged: the spec's template maps to another revision.
	HoldSpecChanged = "SpecChanged"
	// HoldReleased: ReleaseHoldAnnotation named the hold.
	HoldReleased = "Released"
	// HoldPolicyChanged: onFailure no longer asks for holds (Report).
	HoldPolicyChanged = "PolicyChanged"
)

// ControllerFieldManager is the field manager of the controller's writes
// of extended sets: their status alone, never their spec.
const ControllerFieldManager = "ordinal-controller"
