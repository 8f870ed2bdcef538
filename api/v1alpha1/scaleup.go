package v1alpha1

import "k8s.io/apimachinery/pkg/util/intstr"

// ScaleStrategy tunes how a set creates missing pods.
type ScaleStrategy struct {
	// MaxUnavailable bounds a Parallel set's scale-up: a missing pod is
	// created only while fewer of the set's pods than this are
	// unavailable (created and not yet Ready for minReadySeconds, or
	// failing), so a template that cannot run starts this many failing
	// pods, not every missing one. A number, or a percentage of replicas
	// (rounded down, at least 1). Unset, every missing pod is created at
	// once, as apps/v1 does; OrderedReady already creates one pod at a
	// time and ignores it.
	//
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^0*([1-9][0-9]?|100)%$')",message="spec.scaleStrategy.maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}
