package ostsclient

import (
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// NewInformer returns a shared informer for the extended StatefulSets of
// namespace ("" for every namespace) whose cache, handlers and listers see
// *v1alpha1.StatefulSet. The objects are converted once, as they arrive.
func NewInformer(dyn dynamic.Interface, namespace string, resync time.Duration, indexers cache.Indexers) (cache.SharedIndexInformer, error) {
	informer := dynamicinformer.NewFilteredDynamicInformer(dyn, v1alpha1.Resource, namespace, resync, indexers, nil).Informer()
	if err := informer.SetTransform(Transform); err != nil {
		return nil, fmt.Errorf("extended StatefulSet informer: %w", err)
	}
	return informer, nil
}

// Transform is the informer's cache.TransformFunc: an unstructured set
// becomes typed, and so does the last known object of a deletion the
// informer missed. It is idempotent, as the informer requires. A set that
// does not convert is an error; the API server's schema, generated from
// the same types, keeps such objects out.
func Transform(obj any) (any, error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return FromUnstructured(o)
	case cache.DeletedFinalStateUnknown:
		u, ok := o.Obj.(*unstructured.Unstructured)
		if !ok {
			return o, nil
		}
		set, err := FromUnstructured(u)
		if err != nil {
			return nil, err
		}
		o.Obj = set
		return o, nil
	default:
		return obj, nil
	}
}

// Lister reads the extended StatefulSets of an informer's cache.
type Lister struct {
	indexer cache.Indexer
}

// NewLister returns a Lister over an informer's indexer, such as
// NewInformer(…).GetIndexer().
func NewLister(indexer cache.Indexer) *Lister { return &Lister{indexer: indexer} }

// List returns the cached sets of namespace ("" for every namespace) that
// selector matches. The sets are the cache's own: do not modify them.
func (l *Lister) List(namespace string, selector labels.Selector) ([]*v1alpha1.StatefulSet, error) {
	var out []*v1alpha1.StatefulSet
	var bad error
	appendSet := func(obj any) {
		if set, ok := obj.(*v1alpha1.StatefulSet); ok {
			out = append(out, set)
		} else if bad == nil {
			bad = fmt.Errorf("the cache holds a %T, not a *v1alpha1.StatefulSet: was the informer made by NewInformer?", obj)
		}
	}
	var err error
	if namespace == "" {
		err = cache.ListAll(l.indexer, selector, appendSet)
	} else {
		err = cache.ListAllByNamespace(l.indexer, namespace, selector, appendSet)
	}
	if err != nil {
		return nil, err
	}
	return out, bad
}

// Get returns the cached set namespace/name, or a NotFound API error. The
// set is the cache's own: do not modify it.
func (l *Lister) Get(namespace, name string) (*v1alpha1.StatefulSet, error) {
	obj, exists, err := l.indexer.GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(v1alpha1.Resource.GroupResource(), name)
	}
	set, ok := obj.(*v1alpha1.StatefulSet)
	if !ok {
		return nil, fmt.Errorf("the cache holds a %T for %s/%s, not a *v1alpha1.StatefulSet: was the informer made by NewInformer?", obj, namespace, name)
	}
	return set, nil
}
