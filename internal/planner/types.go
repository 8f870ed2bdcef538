package planner

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Input is the observed state one sync plans from. Nothing in it is
// modified; objects in the plan are copies.
type Input struct {
	// Set is the StatefulSet as read from the API, defaulted.
	Set *appsv1.StatefulSet
	// Pods are the pods the set owns, at any ordinal. Pods whose names are
	// not <set>-<ordinal> are reported as warnings and otherwise ignored.
	Pods []*corev1.Pod
	// Claims are claims in the set's namespace by name; a superset of the
	// ones the set's pods use is fine.
	Claims map[string]*corev1.PersistentVolumeClaim
	// Current and Update are the revisions resolved by the revision package.
	Current, Update *appsv1.ControllerRevision
	// CollisionCount is the count Update was named with; it becomes
	// status.collisionCount.
	CollisionCount int32
	// Now is the time availability (minReadySeconds) is judged at.
	Now time.Time
}

// Plan is what one sync should do, in order, and why.
type Plan struct {
	// Steps run in order. A step whose Burst is false runs its actions one
	// after another and stops at the first real error; a Burst step runs its
	// actions concurrently in slow-start batches (1, 2, 4, ... at most 500)
	// and stops after the first batch with an error. The executor stops
	// after the first step that had a real error; NotFound on a delete and
	// AlreadyExists on a claim create are not real errors.
	Steps []Step
	// Status is the status to write. The executor writes it only when it
	// differs from the set's, keeping status.conditions written by others.
	Status appsv1.StatefulSetStatus
	// Waits say why the rollout is not progressing; empty when it is not
	// waiting for anything.
	Waits []Wait
	// RequeueAfter, when non-zero, is when the set should be synced again
	// even without an event: the moment a Ready pod becomes Available.
	RequeueAfter time.Duration
	// Warnings report odd objects a user should know about.
	Warnings []Warning
}

// Step is a group of actions that run together.
type Step struct {
	// Name is one of the Step* constants.
	Name string
	// Actions are in the order a sequential executor must run them.
	Actions []Action
	// Burst runs the actions concurrently with slow-start batches.
	Burst bool
}

// Step names. OrderedReady plans use StepReplicas for everything the
// replica pass does, because order matters across pods there; Parallel
// plans split the pass by kind so each part can burst.
const (
	StepReplicas       = "replicas"
	StepDeleteFailed   = "delete failed pods"
	StepCreateClaims   = "create claims"
	StepCreatePods     = "create pods"
	StepUpdateClaims   = "update claims"
	StepUpdatePods     = "update pods"
	StepClaimRetention = "claim retention"
	StepScaleDown      = "scale down"
	StepRollingUpdate  = "rolling update"
)

// Kind is what an action does to which object.
type Kind string

// Action kinds. There is deliberately no kind that deletes a claim: claims
// are removed only by the garbage collector, through the owner references
// the retention policy sets.
const (
	CreateClaim Kind = "CreateClaim"
	CreatePod   Kind = "CreatePod"
	DeletePod   Kind = "DeletePod"
	// UpdatePod repairs a pod's identity labels or storage volumes.
	UpdatePod Kind = "UpdatePod"
	// UpdateClaim sets a claim's owner references for the retention policy.
	UpdateClaim Kind = "UpdateClaim"
)

// Event reasons, as upstream records them on the set.
const (
	EventSuccessfulCreate = "SuccessfulCreate"
	EventSuccessfulDelete = "SuccessfulDelete"
	EventSuccessfulUpdate = "SuccessfulUpdate"
)

// Action is one API call.
type Action struct {
	Kind    Kind
	Ordinal int32
	// Pod is the pod to create, the observed pod to delete (use its name and
	// UID as preconditions), or the updated copy to write.
	Pod *corev1.Pod
	// Claim is the claim to create or the updated copy to write.
	Claim *corev1.PersistentVolumeClaim
	// Reason says in plain words why, e.g. "scale up: web-3 missing".
	Reason string
	// EventReason is the reason of the Normal event to record on success;
	// empty means no event, as upstream records none for that call.
	EventReason string
}

// Wait explains one thing the rollout is waiting for.
type Wait struct {
	Ordinal int32
	// Pod is the pod waited on (it may not exist yet).
	Pod string
	// Revision is the revision the pod runs, or will run once created.
	Revision string
	// State is the pod's state in words, e.g. "Running, not Ready".
	State string
	// Since is when the pod entered State, when known.
	Since time.Time
	// Policy is what the set's policy waits for, in plain words.
	Policy string
	// Hint is what the user can do about it, when there is something.
	Hint string
}

// Warning reports an odd object; it does not stop the plan.
type Warning struct {
	// Reason is one of the Reason* constants.
	Reason string
	// Object names the object, e.g. "Pod/web-x" or "PersistentVolumeClaim/data-web-0".
	Object  string
	Message string
}

// Warning reasons.
const (
	ReasonUnparsableName        = "UnparsableName"
	ReasonDuplicatePod          = "DuplicatePod"
	ReasonConflictingController = "ConflictingController"
	ReasonRevisionLabelTooLong  = "RevisionLabelTooLong"
	ReasonPodNameTooLong        = "PodNameTooLong"
	ReasonStorageMismatch       = "StorageMismatch"
	ReasonMissingRevision       = "MissingRevision"
	ReasonInvalidRevision       = "InvalidRevision"
	ReasonInvalidMaxUnavailable = "InvalidMaxUnavailable"
	ReasonOrdinalOverflow       = "OrdinalOverflow"
)
