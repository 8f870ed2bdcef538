package planner

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/configrev"
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
	// Extended holds the extended kind's fields; nil for apps/v1 sets.
	Extended *Extended
	// Observed is what the controller sees around an extended set
	// (observed.go); apps/v1 sets read none of it.
	Observed Observed
	// Release is the upstream release an apps/v1 set follows where
	// releases differ and the set does not show which (release.go); the
	// zero value is the newest. The extended kind does not read it.
	Release Release
	// Apply, when set, stands in for revision.Apply (a cache of it that a
	// controller keeps between syncs): it must return what revision.Apply
	// would in name, namespace, UID and spec, which is all the planner
	// reads of the result, and the planner never writes what it returns.
	Apply func(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision) (*appsv1.StatefulSet, error)
	// CreateLimit, when positive and below MaxCreates, is the most
	// missing pods a Parallel replica pass builds, finishing the
	// slow-start batch it reaches them in, as it does at MaxCreates. A
	// controller whose client can create no more pods in one sync's time
	// budget sets it, so a plan does not build the hundreds of pods and
	// claims the sync will not get to; 0 is MaxCreates.
	CreateLimit int
}

// Plan is what one sync should do, in order, and why.
type Plan struct {
	// Steps run in order, and the executor stops after the first step that
	// had a real error (NotFound on a delete and AlreadyExists on a claim
	// create are not real errors). Within a step, consecutive actions with
	// the same Ordinal form one pod's unit, which runs in order: its claim
	// creates all run, and the first other action that fails ends the unit.
	// A step whose Burst is false runs its units one after another and
	// stops at the first unit with an error; a Burst step runs them the way
	// upstream's Parallel policy does, concurrently in the slow-start
	// batches that Batches describes, and stops after the first batch with
	// an error.
	Steps []Step
	// Status is the status to write. The executor writes it only when it
	// differs from the set's. Its conditions are the set's, with the
	// Progressing condition of an apps/v1 Recreate update set as upstream
	// sets it; the executor writes that one and keeps the others as stored.
	Status appsv1.StatefulSetStatus
	// KeepStatus says not to write Status at all: upstream returns before
	// computing a status (a Recreate set while the controller's
	// StatefulSetRecreateStrategy gate is off).
	KeepStatus bool
	// Waits say why the rollout is not progressing; empty when it is not
	// waiting for anything.
	Waits []Wait
	// RequeueAfter, when non-zero, is when the set should be synced again
	// even without an event: the moment a Ready pod becomes Available.
	RequeueAfter time.Duration
	// Warnings report odd objects a user should know about.
	Warnings []Warning
	// Truncated says the Parallel replica pass stopped after MaxCreates
	// (or Input.CreateLimit) missing pods, leaving the rest of the set's ordinals, and the passes
	// after it, to the next sync, which should follow at once.
	Truncated bool
	// Extended is what an extended set's plan adds; nil for apps/v1.
	Extended *ExtendedPlan
}

// Step is a group of actions that run together.
type Step struct {
	// Name is one of the Step* constants.
	Name string
	// Actions are in the order a sequential executor must run them, one
	// pod's actions next to each other.
	Actions []Action
	// Burst runs the pods' units concurrently in slow-start batches.
	Burst bool
	// Batches, for a Burst step, is how many of Actions each batch holds,
	// in order, zero for a batch of pods with nothing to do (batches after
	// the last with actions are left out). Upstream counts its batches (1, 2, 4, ... at most 500 pods)
	// over every pod of the pass, including pods with nothing to do, so
	// which pods share a batch with a failing one, and still run, depends
	// on the pods before them; the planner counts the same way.
	Batches []int
}

// Step names, one per pass of the planner.
const (
	StepReplicas       = "replicas"
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
	// Fail writes nothing: it ends the pod's unit with Error, as upstream's
	// pod control returns an error there (a claim the pod needs is being
	// deleted), and records FailEvent when it is set.
	Fail Kind = "Fail"
)

// Event reasons, as upstream records them on the set.
const (
	EventSuccessfulCreate = "SuccessfulCreate"
	EventSuccessfulDelete = "SuccessfulDelete"
	EventSuccessfulUpdate = "SuccessfulUpdate"
	EventFailedCreate     = "FailedCreate"
	EventFailedUpdate     = "FailedUpdate"
	EventFailedDelete     = "FailedDelete"
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
	// EventReason is the reason of the Normal event to record about the
	// pod at Ordinal once its unit has succeeded; empty means no event, as
	// upstream records none for that call. It is about the pod whatever
	// the action's object, as upstream words it: a retention fix of a
	// running pod's claims is "Update Pod …". A CreateClaim also records
	// upstream's claim event of its own, on success and on failure.
	EventReason string
	// EventMessage, when set, is the message of that event, in place of
	// upstream's "<Verb> Pod <pod> in StatefulSet <set> successful".
	EventMessage string
	// FailEvent is the reason of the Warning to record about the pod when
	// the action fails, or for a Fail action; empty means none. A unit's
	// claim creates all run, and their errors, joined, fail the unit at
	// its next action with that action's FailEvent.
	FailEvent string
	// Error is what a Fail action reports, in upstream's words.
	Error string
	// Patch is the strategic merge patch of a PatchPod, ResizePod,
	// PatchPodStatus, StartHook or EndHook action.
	Patch []byte
	// Call is a CallHook's call.
	Call *HookCall
	// Config is what a ReloadPod, or the CreatePod of a pod made under
	// Reload, writes first: each live ConfigMap with the copy whose data
	// it is to hold (reload.go).
	Config []configrev.Live
	// Evict makes a DeletePod go through the pod's eviction subresource,
	// so that PodDisruptionBudgets are honoured (disruption.go).
	Evict bool
	// Guard is what a ForceDeletePod or DeleteClaim of the node-failure
	// pass re-reads live before it acts (nodefailure.go).
	Guard *NodeGuard
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
	// Event, when set, is the event message in upstream's words, for a
	// warning upstream records too; otherwise the event says "Object: Message".
	Event string
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
	ReasonUnknownUpdateStrategy = "UnknownUpdateStrategy"
	// ReasonUnknownStrategy is upstream's own Warning for a Recreate set
	// while the StatefulSetRecreateStrategy gate is off.
	ReasonUnknownStrategy = "UnknownStrategy"
)
