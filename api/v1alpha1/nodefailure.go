package v1alpha1

// NodeFailurePolicy says what the controller does for a pod whose node has
// failed: stopped heartbeating (NotReady or unreachable), been fenced
// (the node.kubernetes.io/out-of-service taint), or been deleted. Unset,
// the set behaves as upstream's: a pod on a lost node stays, Terminating
// or Unknown, until the node returns or is fenced, and keeps its claims.
// Whatever the policy, the controller names such a pod in
// status.blockedBy, with the command that fences its node.
type NodeFailurePolicy struct {
	// Volumes is what becomes of a lost pod's claims. Keep (the default)
	// never deletes them: a pod whose claim is bound to a volume of its
	// lost node (a local volume) waits for that node. Recreate deletes
	// the ordinal's claims whose volume is pinned (by node affinity on
	// kubernetes.io/hostname) to a host that no node carries, or whose
	// nodes are all NotReady and fenced, for the controller's quarantine
	// (--node-loss-quarantine, 5m by default), once the ordinal's old pod
	// is gone, in a namespace where the controller may delete claims; the
	// set creates them again, empty, so the pod starts on another node and
	// the application re-replicates its data. The data on the lost node is
	// given up; an event records each claim deleted.
	//
	// +kubebuilder:default=Keep
	// +optional
	Volumes NodeFailureVolumes `json:"volumes,omitempty"`

	// ReplaceAfterSeconds, when set, force-deletes a pod whose node has
	// stopped answering (Ready Unknown) for that long, so the set
	// recreates it elsewhere without waiting for anyone to fence the node.
	// A node whose kubelet answers NotReady (Ready False) stops its pods
	// itself, and one with no Ready condition starts no clock.
	// The controller cannot know that a node which stopped answering has
	// stopped its containers: for a while two containers with one
	// identity may run, the lost one still writing to what it reaches.
	// Use it only when the application tolerates that, or when nodes are
	// fenced by other means. Unset (the default) never force-deletes.
	//
	// +kubebuilder:validation:Minimum=0
	// +optional
	ReplaceAfterSeconds *int32 `json:"replaceAfterSeconds,omitempty"`

	// ReplaceExclusiveRoleHolders lets replaceAfterSeconds force-delete
	// pods of a set whose spec.roles has an exclusive role (a leader):
	// the lost pod may still hold the role while its replacement takes
	// it, two leaders at once. Without it the API server refuses
	// replaceAfterSeconds beside an exclusive role.
	//
	// +optional
	ReplaceExclusiveRoleHolders bool `json:"replaceExclusiveRoleHolders,omitempty"`
}

// NodeFailureVolumes is what a node-failure policy does with the claims
// of a pod whose node is lost.
//
// +kubebuilder:validation:Enum=Keep;Recreate
type NodeFailureVolumes string

const (
	// KeepNodeFailureVolumes never deletes a claim for a lost node.
	KeepNodeFailureVolumes NodeFailureVolumes = "Keep"
	// RecreateNodeFailureVolumes deletes, and the set recreates, the claims
	// whose volume is pinned to a host that is gone, or NotReady and
	// fenced, for the controller's quarantine.
	RecreateNodeFailureVolumes NodeFailureVolumes = "Recreate"
)
