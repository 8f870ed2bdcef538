package dashboard

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/setops"
)

// StatefulSets is the apps/v1 kind: read from a shared informer, acted on
// through setops, as `ordinal rollout` does.
type StatefulSets struct {
	client   kubernetes.Interface
	informer cache.SharedIndexInformer
}

var _ Kind = (*StatefulSets)(nil)

// NewStatefulSets adapts apps/v1 StatefulSets, watched through factory and
// acted on with client.
func NewStatefulSets(client kubernetes.Interface, factory informers.SharedInformerFactory) *StatefulSets {
	return &StatefulSets{client: client, informer: factory.Apps().V1().StatefulSets().Informer()}
}

// Name implements Kind.
func (*StatefulSets) Name() string { return "statefulsets.apps" }

// GroupKind implements Kind.
func (*StatefulSets) GroupKind() schema.GroupKind {
	return schema.GroupKind{Group: appsv1.GroupName, Kind: "StatefulSet"}
}

// Informer implements Kind.
func (k *StatefulSets) Informer() cache.SharedIndexInformer { return k.informer }

// View implements Kind: the cached object is already apps/v1.
func (*StatefulSets) View(obj any) (*appsv1.StatefulSet, bool) {
	set, ok := obj.(*appsv1.StatefulSet)
	return set, ok
}

// Actions implements Kind with a fresh read of the set.
func (k *StatefulSets) Actions(ctx context.Context, namespace, name string) (Actions, error) {
	return setops.Load(ctx, k.client, namespace, name)
}
