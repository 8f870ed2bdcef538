package osts

import (
	"slices"
	"strings"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// defaultClassAnnotation marks the cluster's default StorageClass.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// StorageClasses records in o the StorageClasses an InPlace set's plan
// reads: whether each allows expansion, and the default one. Several
// classes marked default give the newest, as the API server's admission
// does. Other sets need none and get none.
func StorageClasses(ext *planner.Extended, o *planner.Observed, list []*storagev1.StorageClass) {
	if ext == nil || ext.ClaimUpdate != v1alpha1.InPlaceVolumeClaimUpdateStrategyType {
		return
	}
	o.StorageClasses = make(map[string]bool, len(list))
	var defaults []*storagev1.StorageClass
	for _, sc := range list {
		o.StorageClasses[sc.Name] = sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
		if sc.Annotations[defaultClassAnnotation] == "true" {
			defaults = append(defaults, sc)
		}
	}
	if len(defaults) > 0 {
		o.DefaultStorageClass = slices.MaxFunc(defaults, newer).Name
	}
}

// newer orders classes by creation, then name.
func newer(a, b *storagev1.StorageClass) int {
	switch {
	case a.CreationTimestamp.Equal(&b.CreationTimestamp):
		return strings.Compare(a.Name, b.Name)
	case a.CreationTimestamp.Before(&b.CreationTimestamp):
		return -1
	}
	return 1
}
