package v1alpha1

// Bounds of rollingUpdate.topology.
const (
	// MaxTopologyOrder is the most domains rollingUpdate.topology.order
	// lists.
	MaxTopologyOrder = 64
	// DefaultTopologyKey is the node label a topology names when it names
	// none: the zone.
	DefaultTopologyKey = "topology.kubernetes.io/zone"
)

// RolloutTopology makes a rolling update go one topology domain (a zone,
// by default) after another: a node label's value is a pod's domain, the
// update works in one domain until every pod there is updated and
// Available, and never has more than maxUnavailablePerDomain pods of a
// domain unavailable, besides the set's maxUnavailable.
//
// Domains go in the order listed in order, then the other domains by
// name; pods on nodes without the label form one last domain. A pod not
// yet scheduled may land in any domain, so it counts against every
// domain's budget.
//
// +kubebuilder:validation:XValidation:rule="!has(self.order) || self.order.all(x, self.order.exists_one(y, y == x))",message="spec.updateStrategy.rollingUpdate.topology.order must not list a domain twice",fieldPath=`.order`
type RolloutTopology struct {
	// Key is the label of the nodes whose value is a pod's domain.
	// Defaults to topology.kubernetes.io/zone.
	//
	// +kubebuilder:default="topology.kubernetes.io/zone"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$')",message="spec.updateStrategy.rollingUpdate.topology.key must be a node label key, such as topology.kubernetes.io/zone"
	// +optional
	Key string `json:"key,omitempty"`
	// MaxUnavailablePerDomain is the most pods of one domain that may be
	// unavailable while the update works there. Defaults to 1.
	//
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxUnavailablePerDomain int32 `json:"maxUnavailablePerDomain,omitempty"`
	// Order lists domains (label values) in the order they are updated;
	// domains it does not list follow, by name. At most 64.
	//
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	// +listType=atomic
	// +optional
	Order []string `json:"order,omitempty"`
}
