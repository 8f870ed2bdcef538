package planner

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
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
	// Paused holds pod updates where they are: no pod is replaced for an
	// update, and a missing pod is recreated at the current revision.
	Paused bool
	// SelfHealing replaces a pod at or above the partition that runs an
	// old revision and is not Ready, even while the rollout waits on it.
	SelfHealing bool
	// OnFailure is what a failed rollout does; empty means Report.
	OnFailure v1alpha1.FailurePolicy
	// ProgressDeadline is how long a rollout may go without progress.
	ProgressDeadline time.Duration
	// MaxUnavailable is rollingUpdate.maxUnavailable scaled to replicas,
	// for the Available condition.
	MaxUnavailable int
	// Priority are the rolling update's priority rules: pods of higher
	// weight (the sum of the matching rules' weights) are replaced first,
	// pods of equal weight highest ordinal first.
	Priority []PriorityRule
	// Reserved are ordinals that get no pod (spec.reserveOrdinals): the
	// set's pods take the first replicas ordinals from the start that are
	// not reserved, and a pod at a reserved ordinal is removed.
	Reserved []OrdinalRange
	// Last is what the set's status said at the previous sync.
	Last ExtendedStatus
	// ClaimUpdate is volumeClaimUpdateStrategy.type; empty means
	// OnClaimDelete. InPlace patches each pod's claims before the pod is
	// updated (claimsInPlaceRollingUpdate).
	ClaimUpdate v1alpha1.VolumeClaimUpdateStrategyType
	// StorageClasses says, for each StorageClass by name, whether it
	// allows volume expansion; DefaultStorageClass is the class a claim
	// without a class name gets. Only InPlace claim updates read them.
	StorageClasses      map[string]bool
	DefaultStorageClass string
	// PodUpdate is rollingUpdate.podUpdatePolicy; empty means Recreate.
	PodUpdate v1alpha1.PodUpdatePolicy
	// InPlaceGrace is how long a pod stays out of its Services' endpoints
	// before it is changed in place; ResizeTimeout is how long a resize
	// may stay Deferred.
	InPlaceGrace, ResizeTimeout time.Duration
	// Revisions are the set's revisions, so that a pod at a revision
	// other than the current one can be updated in place; read only under
	// an in-place pod update policy. The controller passes the list it
	// already holds.
	Revisions []*appsv1.ControllerRevision
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
	// Offline are spec.offlineOrdinals (offline.go).
	Offline []OrdinalRange
	// NodeFailure is the node-failure policy and the nodes it judges
	// (nodefailure.go); nil when the controller cannot read nodes.
	NodeFailure *NodeFailure
	// Topology is rollingUpdate.topology with the nodes' labels
	// (topology.go); nil when unset.
	Topology *Topology
	// PartitionCount counts the partition in pods kept at the current
	// revision after the update order (partitioncount.go).
	PartitionCount bool
	// Budgets is respectDisruptionBudgets, with the evictions refused so
	// far (disruption.go).
	Budgets DisruptionBudgets
	// ScaleUpMaxUnavailable is scaleStrategy.maxUnavailable scaled to
	// replicas; 0 means no limit (scaleup.go).
	ScaleUpMaxUnavailable int
	// Group is the set's turn in its rollout group; nil without one
	// (rolloutgroup.go).
	Group *GroupTurn
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

// SetChange is a write to the set's own spec that the plan asks for.
type SetChange struct {
	// Pause sets updateStrategy.rollingUpdate.paused.
	Pause bool
	// RollbackTo is the revision whose template replaces spec.template.
	RollbackTo string
	// Reason says why, in words, for the event the change records.
	Reason string
}

// ExtendedPlan is what the planner adds to a plan of an extended set.
type ExtendedPlan struct {
	Status ExtendedStatus
	// Change, when set, is applied to the set before its status is
	// written.
	Change *SetChange
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
