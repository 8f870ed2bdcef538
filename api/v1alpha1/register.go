package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the extended kind.
const GroupName = "apps.ordinal.dev"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Kind is the kind of the extended StatefulSet, and Resource its resource.
var (
	Kind     = SchemeGroupVersion.WithKind("StatefulSet")
	Resource = SchemeGroupVersion.WithResource("statefulsets")
)

var (
	// SchemeBuilder registers the types with a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &StatefulSet{}, &StatefulSetList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
