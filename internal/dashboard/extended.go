package dashboard

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// ExtendedStatefulSets is the extended kind (apps.ordinal.dev/v1alpha1):
// read from a shared informer of typed sets, shown through their apps/v1
// view (osts.View) and their own status, acted on through setops as
// `ordinal rollout osts/NAME` does.
type ExtendedStatefulSets struct {
	client   kubernetes.Interface
	ext      *ostsclient.Client
	informer cache.SharedIndexInformer
}

var _ Kind = (*ExtendedStatefulSets)(nil)

// NewExtendedStatefulSets adapts the extended kind, watched through
// factory (which starts the informer with its others) in namespace ("" for
// all) and acted on with client and ext.
func NewExtendedStatefulSets(client kubernetes.Interface, ext *ostsclient.Client, factory informers.SharedInformerFactory, namespace string) (*ExtendedStatefulSets, error) {
	var err error
	informer := factory.InformerFor(&v1alpha1.StatefulSet{}, func(_ kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		var inf cache.SharedIndexInformer
		inf, err = ostsclient.NewInformer(ext.Dynamic(), namespace, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		return inf
	})
	if err != nil {
		return nil, err
	}
	return &ExtendedStatefulSets{client: client, ext: ext, informer: informer}, nil
}

// Name implements Kind.
func (*ExtendedStatefulSets) Name() string {
	return v1alpha1.Resource.Resource + "." + v1alpha1.GroupName
}

// GroupKind implements Kind.
func (*ExtendedStatefulSets) GroupKind() schema.GroupKind { return v1alpha1.Kind.GroupKind() }

// Informer implements Kind.
func (k *ExtendedStatefulSets) Informer() cache.SharedIndexInformer { return k.informer }

// View implements Kind: the set as the planner reads it.
func (*ExtendedStatefulSets) View(obj any) (*appsv1.StatefulSet, bool) {
	set, ok := obj.(*v1alpha1.StatefulSet)
	if !ok {
		return nil, false
	}
	return osts.View(set), true
}

// Transform makes what the dynamic informer receives typed, before the
// store's own transform runs.
func (*ExtendedStatefulSets) Transform(obj any) (any, error) { return ostsclient.Transform(obj) }

// Actions implements Kind with a fresh read of the set.
func (k *ExtendedStatefulSets) Actions(ctx context.Context, namespace, name string) (Actions, error) {
	return setops.LoadExtended(ctx, k.client, k.ext, namespace, name)
}

// extendedOf is the extended set a cached object is, or nil.
func extendedOf(obj any) *v1alpha1.StatefulSet {
	set, _ := obj.(*v1alpha1.StatefulSet)
	return set
}
