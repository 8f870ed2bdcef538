package controller

import (
	"slices"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// defaultClassAnnotation marks the cluster's default StorageClass.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// watchStorageClasses starts caching StorageClasses, which the InPlace
// claim update of extended sets reads to refuse a grow the class does not
// allow. Only a controller that manages the extended kind watches them.
func (c *Controller) watchStorageClasses(factory informers.SharedInformerFactory) {
	inf := factory.Storage().V1().StorageClasses()
	c.classes = inf.Lister()
	c.synced = append(c.synced, inf.Informer().HasSynced)
}

// storageClasses fills in the StorageClasses an InPlace set's plan reads:
// whether each allows expansion, and the default one. Several classes
// marked default give the newest, as the API server's admission does.
func (c *Controller) storageClasses(ext *planner.Extended) {
	if ext == nil || ext.ClaimUpdate != planner.ClaimUpdateInPlace || c.classes == nil {
		return
	}
	list, err := c.classes.List(labels.Everything())
	if err != nil {
		return
	}
	ext.StorageClasses = make(map[string]bool, len(list))
	var defaults []*storagev1.StorageClass
	for _, sc := range list {
		ext.StorageClasses[sc.Name] = sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
		if sc.Annotations[defaultClassAnnotation] == "true" {
			defaults = append(defaults, sc)
		}
	}
	if len(defaults) > 0 {
		newest := slices.MaxFunc(defaults, func(a, b *storagev1.StorageClass) int {
			if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
				return strings.Compare(a.Name, b.Name)
			}
			if a.CreationTimestamp.Before(&b.CreationTimestamp) {
				return -1
			}
			return 1
		})
		ext.DefaultStorageClass = newest.Name
	}
}
