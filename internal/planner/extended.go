package planner

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Extended is what the extended kind (apps.ordinal.dev/v1alpha1) adds to
// a set; Input.Set carries the fields it shares with apps/v1. A nil
// Extended plans an apps/v1 set exactly as upstream does, so nothing here
// can change apps/v1 behaviour.
type Extended struct {
	// Owner is the kind that owns the set's pods, claims and revisions.
	Owner schema.GroupVersionKind
	// Recreate is the Recreate update strategy: every old-revision pod is
	// deleted, and pods are created again only once all are gone.
	Recreate bool
	// Paused is rollingUpdate.paused: pod updates are held where they
	// are: no pod is replaced for an update, and a missing pod is
	// recreated at the current revision. A hold of the failure policy
	// and a rollout group's turn hold them the same way (paused).
	Paused bool
	// SelfHealing replaces a pod at or above the partition that runs an
	// old revision and is not Ready, even while the rollout waits on it.
	SelfHealing bool
	// OnFailure is what a failed rollout does; empty means Report.
	OnFailure v1alpha1.FailurePolicy
	// ProgressDeadline is how long a rollout may go without progress.
	ProgressDeadline time.Duration
	// MaxUnavailable is rollingUpdate.maxUnavailable scaled to replicas
	// (ScaleMaxUnavailable), for the Available condition; 1 when it
	// cannot be read, which Invalid reports.
	MaxUnavailable int
	// Priority are the rolling update's priority rules: pods of higher
	// weight (the sum of the matching rules' weights) are replaced first,
	// pods of equal weight highest ordinal first.
	Priority []PriorityRule
	// Reserved are ordinals that get no pod (spec.reserveOrdinals): the
	// set's pods take the first replicas ordinals from the start that are
	// not reserved, and a pod at a reserved ordinal is removed.
	Reserved []OrdinalRange
	// Last is what the set's status said at the previous sync; its Hold
	// is the failure policy's decision in force (hold.go).
	Last ExtendedStatus
	// ReleaseHold is the value of v1alpha1.ReleaseHoldAnnotation: the ID
	// of a hold a person released.
	ReleaseHold string
	// ClaimUpdate is volumeClaimUpdateStrategy.type; empty means
	// OnClaimDelete. InPlace patches each pod's claims before the pod is
	// updated (claimsExecutor).
	ClaimUpdate v1alpha1.VolumeClaimUpdateStrategyType
	// PodUpdate is rollingUpdate.podUpdatePolicy; empty means Recreate.
	PodUpdate v1alpha1.PodUpdatePolicy
	// InPlaceGrace is how long a pod stays out of its Services' endpoints
	// before it is changed in place; ResizeTimeout is how long a resize
	// may stay Deferred.
	InPlaceGrace, ResizeTimeout time.Duration
	// PreUpdate and PreDelete are spec.lifecycle's hooks, nil when unset.
	PreUpdate, PreDelete *Hook
	// Roles is spec.roles, nil when unset; Switchover is
	// lifecycle.switchover, run before the holder of an exclusive role is
	// disrupted (roles.go, switchover.go).
	Roles      *RoleSpec
	Switchover *Hook
	// PostCreate and PostUpdate are spec.lifecycle's member hooks
	// (memberhooks.go), nil when unset.
	PostCreate, PostUpdate *Hook
	// Reload is spec.configRevisions.apply Reload with lifecycle.reload
	// (reload.go); nil under Restart.
	Reload *Reload
	// Offline are spec.offlineOrdinals (offline.go).
	Offline []OrdinalRange
	// NodeFailure is the node-failure policy (nodefailure.go); nil
	// without one.
	NodeFailure *NodeFailure
	// MoveOffDrainedNodes is nodeDrainPolicy Move: the pods on a node
	// the observed nodes show drained are moved off it (nodedrain.go).
	MoveOffDrainedNodes bool
	// Topology is rollingUpdate.topology (topology.go); nil when unset.
	Topology *Topology
	// PartitionCount counts the partition in pods kept at the current
	// revision after the update order (partitioncount.go).
	PartitionCount bool
	// Budgets is respectDisruptionBudgets (disruption.go).
	Budgets DisruptionBudgets
	// DisruptionBudget is spec.disruptionBudget, nil when unset: the
	// PodDisruptionBudget the set keeps (budgetmanaged.go).
	DisruptionBudget *ManagedBudget
	// ScaleUpMaxUnavailable is scaleStrategy.maxUnavailable scaled to
	// replicas; 0 means no limit (scaleup.go).
	ScaleUpMaxUnavailable int
	// Invalid are the spec's values that could not be read, each
	// reported as a warning by every plan (Compute).
	Invalid []SpecError
}

// SpecError is a value of the spec that could not be read.
type SpecError struct {
	// Field is the value's path, e.g. spec.scaleStrategy.maxUnavailable.
	Field string
	// Reason is the warning's reason, e.g. ReasonInvalidMaxUnavailable.
	Reason string
	// Message says what is wrong and what the plan does instead.
	Message string
}

// FieldRollingMaxUnavailable is the path of the rolling update's
// maxUnavailable, which the rolling update reports itself when it is not
// listed in Extended.Invalid.
const FieldRollingMaxUnavailable = "spec.updateStrategy.rollingUpdate.maxUnavailable"

// invalid reports whether the spec's value at field could not be read.
func (e *Extended) invalid(field string) bool {
	return e != nil && slices.ContainsFunc(e.Invalid, func(s SpecError) bool { return s.Field == field })
}

// ClaimTemplateStatus is how many of the set's pods have a claim that
// matches one volumeClaimTemplate (see claimMatches), and how many of
// those are Ready.
type ClaimTemplateStatus struct {
	Name             string
	MatchingReplicas int32
	ReadyReplicas    int32
}

// ExtendedStatus is the part of the extended kind's status the planner
// computes beyond apps/v1's.
type ExtendedStatus struct {
	UpdatedReadyReplicas     int32
	UpdatedAvailableReplicas int32
	LastCompletedRevision    string
	// LastProgress is when the rollout last made progress: a new update
	// revision, or one more pod at it created or Available.
	LastProgress time.Time
	Conditions   []metav1.Condition
	BlockedBy    []PodFailure
	Rollback     *RollbackRecord
	// Hold is the failure policy's decision in force (hold.go).
	Hold *Hold
	// UpdateRevision and UpdatedReplicas repeat apps/v1's fields, so the
	// next plan can tell progress from the last status alone.
	UpdateRevision  string
	UpdatedReplicas int32
	// VolumeClaims has one entry per volumeClaimTemplate.
	VolumeClaims []ClaimTemplateStatus
	// Members are the set's members (members.go), at most MaxMembers;
	// MembersOmitted counts those left out.
	Members        []Member
	MembersOmitted int32
	// Overrides has one entry per override of the update revision.
	Overrides []OverrideCount
}

// PodFailure is why a pod holds a rollout up.
type PodFailure struct {
	Pod      string
	Ordinal  int32
	Revision string
	// Reason is a CamelCase class: Failed, InvalidImageName,
	// ImagePullBackOff, CreateContainerConfigError, CrashLoopBackOff,
	// NotReady, NeverReady, Unschedulable, Pending, Terminating.
	Reason  string
	Message string
	// Permanent failures do not cure with time; they fail the rollout at
	// once instead of at the progress deadline.
	Permanent bool
	Since     time.Time
}

// RollbackRecord is one automatic rollback.
type RollbackRecord struct {
	From, To, Reason string
	Time             time.Time
}

// ExtendedPlan is what the planner adds to a plan of an extended set.
type ExtendedPlan struct {
	Status ExtendedStatus
	// HoldEvent, when set, reports a hold the status records or ends; the
	// controller records it once that status is written. No plan asks for
	// a write of the set's spec.
	HoldEvent *HoldEvent
	// Order is the old-revision pods the rolling update has yet to
	// replace, in the order it replaces them; only for a set with
	// priority rules.
	Order []OrderedPod
	// Domains are the topology domains in rollout order; only for a set
	// with rollingUpdate.topology.
	Domains []DomainProgress
	// Kept are the pods a Count partition keeps at the current revision,
	// lowest ordinal first; only for such a set.
	Kept []string
	// Budget is the PodDisruptionBudget the set keeps, as sized now; nil
	// without spec.disruptionBudget, when the controller deletes the one
	// it kept (budgetmanaged.go).
	Budget *BudgetPlan
	// EvictionResponses answer Observed.EvictionRequests, one each
	// (evictionrequest.go).
	EvictionResponses []EvictionResponse
}

// Condition types and reasons of the extended kind.
const (
	ConditionAvailable      = "Available"
	ConditionProgressing    = "Progressing"
	ConditionReplicaFailure = "ReplicaFailure"

	ReasonRolloutComplete          = "RolloutComplete"
	ReasonRolloutProgressing       = "RolloutProgressing"
	ReasonRolloutPaused            = "RolloutPaused"
	ReasonPartitionRolledOut       = "PartitionRolledOut"
	ReasonRolloutFailed            = "RolloutFailed"
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	ReasonRollingBack              = "RollingBack"
	ReasonMinimumAvailable         = "MinimumReplicasAvailable"
	ReasonMinimumUnavailable       = "MinimumReplicasUnavailable"
	ReasonPodFailure               = "PodFailure"
	ReasonNoFailure                = "NoPodFailure"
)
