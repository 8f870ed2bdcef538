package planner

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// NodeFailure is an extended set's node-failure policy
// (spec.nodeFailurePolicy); NodeFacts are the nodes it judges.
type NodeFailure struct {
	// Volumes is the policy's volumes; empty means Keep.
	Volumes v1alpha1.NodeFailureVolumes
	// Replace is true when ReplaceAfter is set: a pod whose node has not
	// answered (Ready Unknown) for ReplaceAfter is force-deleted.
	Replace      bool
	ReplaceAfter time.Duration
}

// NodeFacts is what an extended set's plan knows of the nodes its pods
// run on and the hosts its claims' volumes are pinned to
// (Observed.Nodes). A pod's node is a node name; a volume's host is the
// value of the kubernetes.io/hostname label its node affinity requires,
// which need not be any node's name (a node named by its DNS name
// carries its short hostname): the two are judged apart, Nodes by name
// and Hosts by label.
type NodeFacts struct {
	// Nodes are the nodes the set's pods run on, by name; one absent from
	// a non-nil map is gone (its Node object deleted). Nil (never read)
	// turns the node-failure pass off.
	Nodes map[string]NodeState
	// ClaimHosts maps a claim's name to the host its bound volume can be
	// used on (a local volume), for claims that have one.
	ClaimHosts map[string]string
	// Hosts are the hosts of ClaimHosts as the controller judged them; a
	// host absent from it is not lost.
	Hosts map[string]HostState
	// Quarantine is how long a host must have been lost, without a break,
	// before volumes: Recreate gives its claims up; 0 when not known (a
	// plan made outside the controller, which knows only what the
	// controller reported: HostState.QuarantineOver).
	Quarantine time.Duration
	// ClaimDeletion says whether the controller may delete claims in the
	// set's namespace; volumes: Recreate deletes one only when Allowed.
	ClaimDeletion Permission
}

// NodeState is one node as a plan judges it.
type NodeState struct {
	// Ready is the status of the node's Ready condition: True, False (its
	// kubelet answers and reports NotReady), Unknown (the node lifecycle
	// controller stopped hearing from its kubelet), or "" when it has
	// none (its kubelet never reported).
	Ready corev1.ConditionStatus
	// Since is when the node stopped being Ready: the Ready condition's
	// last transition, or, when that is missing, when the controller
	// first saw the condition Unknown; zero when not known, which starts
	// no replaceAfterSeconds clock.
	Since time.Time
	// OutOfService is the node carrying the node.kubernetes.io/out-of-service
	// taint: fenced, said to be shut down.
	OutOfService bool
	// Drain says why the node is being drained ("cordoned", or the taint
	// that announces it); "" when it is not.
	Drain string
	// UID is the Node object's: a force delete goes ahead only while a
	// live read shows the same object (NodeGuard).
	UID types.UID
}

// HostLoss is how a host is lost.
type HostLoss string

// HostState is one host as the controller judged it.
type HostState struct {
	// Nodes are the nodes carrying the host's label, by name.
	Nodes []string
	// Loss is empty while the host is not lost.
	Loss HostLoss
	// Since is when the controller first saw the host lost, the start
	// of an unbroken run of such observations.
	Since time.Time
	// QuarantineOver is the controller's word that the host has been lost
	// for its quarantine, for a plan that does not know the quarantine
	// (NodeFailure.Quarantine 0).
	QuarantineOver bool
}

// Permission is whether the controller may make a call.
type Permission string

// NodeGuard is what the pod control reads live right before a destructive
// node-failure action; the action is refused unless it still holds.
type NodeGuard struct {
	// Node and UID (ForceDeletePod): Node is the same object, its Ready
	// condition Unknown, not out of service.
	Node string
	UID  types.UID
	// Host (DeleteClaim): no node carries kubernetes.io/hostname=Host, or
	// every one that does is NotReady and out of service.
	Host string
}
