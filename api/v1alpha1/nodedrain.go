package v1alpha1

// NodeDrainPolicy is what an extended set does when a node one of its pods
// runs on is drained: cordoned (spec.unschedulable), or carrying a taint
// that announces a drain (node.kubernetes.io/unschedulable, the cluster
// autoscaler's ToBeDeletedByClusterAutoscaler, Karpenter's
// karpenter.sh/disrupted).
//
// +kubebuilder:validation:Enum=Move;Ignore
type NodeDrainPolicy string

const (
	// NodeDrainMove moves the pod off the drained node in the set's own
	// turn and budget, as the rolling update removes a pod: within
	// maxUnavailable and a topology's per-domain budget, counted together
	// with the rollout's own disruptions, keeping each role's quorum,
	// after the switchover of an exclusive role and the preDelete hook;
	// then the pod is deleted (evicted when respectDisruptionBudgets) so
	// that it starts on another node. A pod whose claim is on a local
	// volume of that node is not moved: it could not start elsewhere.
	NodeDrainMove NodeDrainPolicy = "Move"
	// NodeDrainIgnore leaves the pods of a drained node to whoever drains
	// it, as apps/v1 does.
	NodeDrainIgnore NodeDrainPolicy = "Ignore"
)
