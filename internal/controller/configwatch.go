package controller

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// newConfigFactory is the informer factory of the ConfigMap cache that
// sets with spec.configRevisions read: it holds each ConfigMap's metadata
// alone (configMapRecord), so its memory follows the number of
// ConfigMaps, never their size. Like the node caches it starts at the
// first sync that needs it (nodeWatch), so a controller of sets without
// configRevisions never lists a ConfigMap.
func newConfigFactory(client kubernetes.Interface, namespace string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace),
		informers.WithTransform(func(obj any) (any, error) {
			if cm, ok := obj.(*corev1.ConfigMap); ok {
				return configMapRecord(cm), nil
			}
			return obj, nil
		}))
}

// configMapRecord keeps of a ConfigMap its name, identity, version,
// labels (whether it is a copy) and owners (which revisions use a copy),
// and of a copy its keys' hashes (a reload hook's request names them).
func configMapRecord(o *corev1.ConfigMap) *corev1.ConfigMap {
	rec := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, UID: o.UID,
		ResourceVersion: o.ResourceVersion, Labels: o.Labels, OwnerReferences: o.OwnerReferences}}
	if keys, ok := o.Annotations[v1alpha1.ConfigKeysAnnotation]; ok {
		rec.Annotations = map[string]string{v1alpha1.ConfigKeysAnnotation: keys}
	}
	return rec
}

// watchConfigMaps registers the ConfigMap cache on factory: a change to
// a ConfigMap wakes the sets whose templates read it (configUsers).
func (c *Controller) watchConfigMaps(factory informers.SharedInformerFactory) (*nodeWatch, error) {
	inf := factory.Core().V1().ConfigMaps()
	wake := func(obj any) {
		if cm, ok := unwrap[*corev1.ConfigMap](obj); ok {
			for _, key := range c.configUsers.of(cm.Namespace + "/" + cm.Name) {
				c.enqueue(key)
			}
		}
	}
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: wake, UpdateFunc: func(_, cur any) { wake(cur) }, DeleteFunc: wake,
	}); err != nil {
		return nil, err
	}
	c.configMaps = inf.Lister()
	return &nodeWatch{factory: factory, wanted: make(chan struct{}), synced: []cache.InformerSynced{inf.Informer().HasSynced}}, nil
}

// configUsers knows which sets read which ConfigMaps, by "namespace/name",
// as each set's last sync found them.
type configUsers struct {
	mu       sync.Mutex
	byObject map[string]map[string]bool
	bySet    map[string][]string
}

// set records that the set of key reads objects (replacing what it read
// before); none forgets the set.
func (u *configUsers) set(key string, objects []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byObject == nil {
		u.byObject, u.bySet = map[string]map[string]bool{}, map[string][]string{}
	}
	for _, o := range u.bySet[key] {
		delete(u.byObject[o], key)
		if len(u.byObject[o]) == 0 {
			delete(u.byObject, o)
		}
	}
	if len(objects) == 0 {
		delete(u.bySet, key)
		return
	}
	u.bySet[key] = objects
	for _, o := range objects {
		if u.byObject[o] == nil {
			u.byObject[o] = map[string]bool{}
		}
		u.byObject[o][key] = true
	}
}

// of returns the keys of the sets that read object.
func (u *configUsers) of(object string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]string, 0, len(u.byObject[object]))
	for key := range u.byObject[object] {
		out = append(out, key)
	}
	return out
}
