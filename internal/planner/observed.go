package planner

import (
	appsv1 "k8s.io/api/apps/v1"
)

// Observed is what the controller sees around an extended set for one
// plan, apart from the set itself: the cluster's nodes and StorageClasses,
// the evictions the API server refused, the set's revisions and its turn
// in its rollout group. Extended is the set's spec and last status, built
// once from the object and never changed after; everything here is read
// afresh for every sync. The zero value is a plan made without looking
// around (`rollout plan` without the rights to read nodes, or an apps/v1
// set, which reads none of it).
type Observed struct {
	// Revisions are the set's revisions, so that a pod at a revision
	// other than the current one can be updated in place (read only
	// under an in-place pod update policy), and a hold can run an
	// earlier revision (hold.go). The controller passes the list it
	// already holds.
	Revisions []*appsv1.ControllerRevision
	// StorageClasses says, for each StorageClass by name, whether it
	// allows volume expansion; DefaultStorageClass is the class a claim
	// without a class name gets. Nil when not read; only InPlace claim
	// updates read them (claimupdate.go).
	StorageClasses      map[string]bool
	DefaultStorageClass string
	// Domains gives, by node name, the node's value of the set's topology
	// key (Topology.Key); a node without the label (or unknown) is absent.
	// Nil means the nodes could not be read, and a rolling update by
	// topology holds (ReasonTopologyUnknown).
	Domains map[string]string
	// Nodes are the nodes the node-failure pass judges (nodefailure.go);
	// nil when the controller cannot read nodes, which turns the pass off.
	Nodes *NodeFacts
	// Refused are the evictions the API server refused so far, by pod
	// name (disruption.go).
	Refused map[string]EvictionRefusal
	// Group is the set's turn in its rollout group, as judged from the
	// group's sets; nil without a group (rolloutgroup.go). A set whose
	// update waits for the turn is held: its pods stay at their revision
	// as under a pause, which the plan tells apart from the user's.
	Group *GroupTurn
	// Budgets are the PodDisruptionBudgets that select the set's pods
	// (budgetmanaged.go); nil when not read.
	Budgets *Budgets
	// EvictionRequests are the eviction requests (lifecycle.k8s.io) for
	// the set's pods whose active responder is the set's controller
	// (evictionrequest.go); nil where the API is not served.
	EvictionRequests []EvictionRequest
}
