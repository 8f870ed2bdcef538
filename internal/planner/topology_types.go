package planner

// Topology is the extended kind's rollingUpdate.topology: the rolling
// update works in one domain (a node label's value) at a time, in Order,
// with at most MaxUnavailablePerDomain pods of that domain unavailable.
type Topology struct {
	// Key is the node label whose value is a pod's domain.
	Key string
	// MaxUnavailablePerDomain is at least 1.
	MaxUnavailablePerDomain int
	// Order lists domains that go first, in this order; the others follow
	// by name, and pods on nodes without the label form the last domain.
	// Each node's domain is observed (Observed.Domains).
	Order []string
}

// DomainProgress is one topology domain of a plan, in rollout order.
type DomainProgress struct {
	// Name is the label value; NoDomain for nodes without the label.
	Name string
	// Pods are the set's pods on the domain's nodes; Updated those at the
	// update revision, Unavailable those not Available or terminating,
	// counting the pods this plan deletes.
	Pods, Updated, Unavailable int
	// Active is true for the domain the rolling update works in; Done for
	// a domain whose pods are all updated and Available.
	Active, Done bool
}
