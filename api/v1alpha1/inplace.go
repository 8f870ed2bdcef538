package v1alpha1

// PodUpdatePolicy is how the rolling update brings a pod to a new
// template.
//
// +kubebuilder:validation:Enum=Recreate;InPlaceIfPossible;InPlaceOnly
type PodUpdatePolicy string

// Pod update policies.
const (
	// PodUpdateRecreate deletes the pod and creates it again from the new
	// template, as apps/v1 does.
	PodUpdateRecreate PodUpdatePolicy = "Recreate"
	// PodUpdateInPlaceIfPossible changes the running pod when the new
	// template differs from its own only in container images, template
	// labels and annotations, and containers' cpu and memory (through the
	// pod's resize subresource); any other change recreates the pod, and
	// so does a resize the node reports Infeasible or keeps Deferred past
	// inPlace.resizeTimeoutSeconds.
	PodUpdateInPlaceIfPossible PodUpdatePolicy = "InPlaceIfPossible"
	// PodUpdateInPlaceOnly changes pods in place only: a change that cannot
	// be made in place, or a resize the node will not make, holds the
	// rollout at that pod with status.blockedBy, a Warning event and the
	// set's onFailure policy.
	PodUpdateInPlaceOnly PodUpdatePolicy = "InPlaceOnly"
)

// InPlaceReadinessGate is the readiness gate the controller adds to the
// pods of a set that updates pods in place, and the pod condition it
// writes for it: False while it changes the pod, so that the pod leaves
// its Services' endpoints first, True once the change has taken.
const InPlaceReadinessGate = "apps.ordinal.dev/in-place-ready"

// InPlaceUpdateAnnotation records on a pod the last change of its spec the
// controller made in place: the revision and the time, as JSON. The pod
// counts as unavailable until the kubelet has reported that change
// (status.observedGeneration), its containers are Ready and no resize is
// in progress.
const InPlaceUpdateAnnotation = "apps.ordinal.dev/in-place-update"

// InPlaceUpdate tunes updates in place.
type InPlaceUpdate struct {
	// GracePeriodSeconds is how long the controller waits after taking a
	// pod out of its Services' endpoints (its readiness gate False) before
	// it changes the pod, so that clients and load balancers stop sending
	// it traffic. Defaults to 0.
	//
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	GracePeriodSeconds int32 `json:"gracePeriodSeconds,omitempty"`
	// ResizeTimeoutSeconds is how long a resize may stay Deferred by the
	// node before it is given up: the pod is recreated
	// (InPlaceIfPossible) or the rollout is held (InPlaceOnly). An
	// Infeasible resize is given up at once. Defaults to 120.
	//
	// +kubebuilder:default=120
	// +kubebuilder:validation:Minimum=1
	// +optional
	ResizeTimeoutSeconds int32 `json:"resizeTimeoutSeconds,omitempty"`
}
