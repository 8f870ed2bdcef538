package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Bounds of spec.overrides.
const (
	// MaxOverrides is the most overrides a set holds.
	MaxOverrides = 16
	// MaxOverrideOrdinals is the most entries an override's ordinals hold.
	MaxOverrideOrdinals = 8
)

// OrdinalOverride gives the pods at some ordinals a template that differs
// from the set's in the fields it sets, and their claims other storage.
// The override is part of the set's revisions (docs/overrides.md).
//
// +kubebuilder:validation:XValidation:rule="has(self.template) || has(self.volumeClaimTemplates)",message="spec.overrides[] must set template or volumeClaimTemplates"
type OrdinalOverride struct {
	// Name names the override's group of pods; a DNS label, unique among
	// the set's overrides.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Ordinals are the ordinals the override applies to: integers and
	// ranges "low-high" (both ends included), as in reserveOrdinals. An
	// ordinal outside the set is allowed: the set may grow into it.
	//
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(x, type(x) == int ? x >= 0 && x <= 2147483647 : x.matches('^[0-9]{1,10}(-[0-9]{1,10})?$') && int(x.split('-')[0]) <= int(x.split('-')[x.split('-').size() - 1]) && int(x.split('-')[x.split('-').size() - 1]) <= 2147483647)",message="spec.overrides[].ordinals entries must be ordinals (integers from 0 to 2147483647) or ranges \"low-high\" of them with low <= high, such as 5 or \"5-7\""
	// +listType=atomic
	Ordinals []intstr.IntOrString `json:"ordinals"`
	// Template is what differs from spec.template for these ordinals.
	//
	// +optional
	Template *OverrideTemplate `json:"template,omitempty"`
	// VolumeClaimTemplates is what differs from spec.volumeClaimTemplates
	// for these ordinals' claims, by template name.
	//
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +optional
	VolumeClaimTemplates []VolumeClaimOverride `json:"volumeClaimTemplates,omitempty"`
}

// OverrideTemplate is the part of a pod template an override may set.
type OverrideTemplate struct {
	// Metadata holds labels and annotations added to the template's.
	//
	// +optional
	Metadata *OverrideMetadata `json:"metadata,omitempty"`
	// Spec holds the pod fields an override may set.
	//
	// +optional
	Spec *OverridePodSpec `json:"spec,omitempty"`
}

// OverrideMetadata is labels and annotations added to the template's; a
// key of the override wins.
type OverrideMetadata struct {
	// Labels are added to the template's labels.
	//
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are added to the template's annotations.
	//
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// OverridePodSpec is the part of a pod spec an override may set.
type OverridePodSpec struct {
	// Containers change the template's containers of the same name.
	//
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +optional
	Containers []ContainerOverride `json:"containers,omitempty"`
	// NodeSelector is added to the template's; a key of the override wins.
	//
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Affinity replaces the template's.
	//
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations are appended to the template's; one equal to a
	// toleration the template has is not repeated.
	//
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// TopologySpreadConstraints replace the template's.
	//
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// PriorityClassName replaces the template's.
	//
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// ContainerOverride changes one of the template's containers.
type ContainerOverride struct {
	// Name is the container's name in spec.template. A name the
	// template does not have is reported (a Warning event and
	// `ordinal rollout plan`) and changes nothing.
	//
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Image replaces the container's image.
	//
	// +optional
	Image string `json:"image,omitempty"`
	// Args replace the container's args.
	//
	// +listType=atomic
	// +optional
	Args []string `json:"args,omitempty"`
	// Env is merged into the container's by name: a variable of the
	// override replaces the container's of that name, others are
	// appended.
	//
	// +kubebuilder:validation:MaxItems=256
	// +listType=atomic
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Resources are merged into the container's by resource name, in
	// requests and in limits; claims, when set, replace the container's.
	//
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
}

// VolumeClaimOverride changes one of spec.volumeClaimTemplates for the
// override's ordinals.
type VolumeClaimOverride struct {
	// Name is the claim template's name in spec.volumeClaimTemplates.
	//
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Storage is the storage request; the larger of the template's and
	// this counts, so an override never shrinks a claim.
	//
	// +optional
	Storage *resource.Quantity `json:"storage,omitempty"`
	// StorageClassName replaces the template's; a bound claim's class
	// cannot change, so it reaches claims made after it.
	//
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`
	// VolumeAttributesClassName replaces the template's.
	//
	// +optional
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty"`
}

// OverrideStatus is how many of the set's pods an override covers.
type OverrideStatus struct {
	// Name is the override's name.
	Name string `json:"name"`
	// Replicas is the number of the set's ordinals the override lists;
	// 0 for an override whose ordinals are all outside the set.
	Replicas int32 `json:"replicas"`
}

// ParseOverrideOrdinals reads an override's ordinals, with the parser of
// spec.reserveOrdinals; field names the list in errors.
func ParseOverrideOrdinals(field string, list []intstr.IntOrString) ([]OrdinalRange, error) {
	return parseOrdinalList(field, list)
}
