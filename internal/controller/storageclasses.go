package controller

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// watchStorageClasses starts caching StorageClasses, which the InPlace
// claim update of extended sets reads to refuse a grow the class does not
// allow. Only a controller that manages the extended kind watches them.
func (c *Controller) watchStorageClasses(factory informers.SharedInformerFactory) {
	inf := factory.Storage().V1().StorageClasses()
	c.classes = inf.Lister()
	c.synced = append(c.synced, inf.Informer().HasSynced)
}

// storageClasses observes the StorageClasses an InPlace set's plan reads
// (osts.StorageClasses), from the cache.
func (c *Controller) storageClasses(ext *planner.Extended, o *planner.Observed) {
	if ext == nil || ext.ClaimUpdate != v1alpha1.InPlaceVolumeClaimUpdateStrategyType || c.classes == nil {
		return
	}
	list, err := c.classes.List(labels.Everything())
	if err != nil {
		return
	}
	osts.StorageClasses(ext, o, list)
}
