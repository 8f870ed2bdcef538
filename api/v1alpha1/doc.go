// Package v1alpha1 is the extended StatefulSet, apps.ordinal.dev/v1alpha1
// kind StatefulSet (short name osts): every field of apps/v1's StatefulSet,
// with the same JSON and the same defaults, so changing a manifest's
// apiVersion moves a set to it, plus what upstream does not do: rollouts
// that heal, stop and roll back by themselves.
//
// +kubebuilder:object:generate=true
// +groupName=apps.ordinal.dev
package v1alpha1
