package dashboard

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// byController indexes pods and revisions by their controller's UID.
const byController = "controller"

// store is the server's one watch of everything the pages show: the sets
// of each kind and the pods, claims, revisions and events of their
// namespace(s). Pages read only from it, never from the API.
type store struct {
	kinds     []Kind
	pods      cache.SharedIndexInformer
	claims    cache.SharedIndexInformer
	revisions cache.SharedIndexInformer
	events    cache.SharedIndexInformer
}

func newStore(factory informers.SharedInformerFactory, kinds []Kind) (*store, error) {
	s := &store{
		kinds:     kinds,
		pods:      factory.Core().V1().Pods().Informer(),
		claims:    factory.Core().V1().PersistentVolumeClaims().Informer(),
		revisions: factory.Apps().V1().ControllerRevisions().Informer(),
		events:    factory.Core().V1().Events().Informer(),
	}
	for _, inf := range []cache.SharedIndexInformer{s.pods, s.revisions} {
		if err := inf.AddIndexers(cache.Indexers{byController: controllerUID}); err != nil {
			return nil, fmt.Errorf("indexing by controller: %w", err)
		}
	}
	for _, inf := range []cache.SharedIndexInformer{s.pods, s.claims, s.revisions, s.events} {
		if err := inf.SetTransform(dropManagedFields); err != nil {
			return nil, fmt.Errorf("setting the informers' transform: %w", err)
		}
	}
	for _, k := range kinds {
		if err := k.Informer().SetTransform(kindTransform(k)); err != nil {
			return nil, fmt.Errorf("setting the informers' transform: %w", err)
		}
	}
	return s, nil
}

// transformer is a kind whose informer must change what it receives
// before it is cached (the extended kind's arrives unstructured).
type transformer interface {
	Transform(obj any) (any, error)
}

// kindTransform is the kind's own transform, if any, then
// dropManagedFields: an informer has one transform, so they are chained.
func kindTransform(k Kind) cache.TransformFunc {
	t, ok := k.(transformer)
	if !ok {
		return dropManagedFields
	}
	return func(obj any) (any, error) {
		obj, err := t.Transform(obj)
		if err != nil {
			return nil, err
		}
		return dropManagedFields(obj)
	}
}

func (s *store) informers() []cache.SharedIndexInformer {
	out := []cache.SharedIndexInformer{s.pods, s.claims, s.revisions, s.events}
	for _, k := range s.kinds {
		out = append(out, k.Informer())
	}
	return out
}

func controllerUID(obj any) ([]string, error) {
	m, err := meta(obj)
	if err != nil {
		return nil, nil
	}
	if ref := metav1.GetControllerOfNoCopy(m); ref != nil {
		return []string{string(ref.UID)}, nil
	}
	return nil, nil
}

// dropManagedFields keeps the cache small: no page shows field managers.
func dropManagedFields(obj any) (any, error) {
	if m, err := meta(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

func meta(obj any) (metav1.Object, error) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, errors.New("not an object")
	}
	return m, nil
}

// listCheck is one resource preflight lists.
type listCheck struct {
	what string
	list func() error
}

// preflight lists each resource once, so a user who may not read them
// gets one clear error instead of informers retrying forever.
func preflight(ctx context.Context, client kubernetes.Interface, ext *ostsclient.Client, namespace string) error {
	opts := metav1.ListOptions{Limit: 1}
	checks := []listCheck{
		{"statefulsets", func() error { _, err := client.AppsV1().StatefulSets(namespace).List(ctx, opts); return err }},
		{"pods", func() error { _, err := client.CoreV1().Pods(namespace).List(ctx, opts); return err }},
		{"persistentvolumeclaims", func() error {
			_, err := client.CoreV1().PersistentVolumeClaims(namespace).List(ctx, opts)
			return err
		}},
		{"controllerrevisions", func() error { _, err := client.AppsV1().ControllerRevisions(namespace).List(ctx, opts); return err }},
		{"events", func() error { _, err := client.CoreV1().Events(namespace).List(ctx, opts); return err }},
	}
	if ext != nil {
		checks = append(checks, listCheck{"statefulsets.apps.ordinal.dev", func() error { _, err := ext.StatefulSets(namespace).List(ctx, opts); return err }})
	}
	for _, c := range checks {
		if err := c.list(); err != nil {
			return fmt.Errorf("listing %s in %s: %w", c.what, scope(namespace), err)
		}
	}
	return nil
}

func scope(namespace string) string {
	if namespace == "" {
		return "all namespaces (pass --namespace to show one)"
	}
	return "namespace " + namespace
}

// sync starts the informers and waits for their first list.
func (s *store) sync(ctx context.Context, factory informers.SharedInformerFactory, timeout time.Duration) error {
	factory.Start(ctx.Done())
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var synced []cache.InformerSynced
	for _, inf := range s.informers() {
		synced = append(synced, inf.HasSynced)
	}
	if !cache.WaitForCacheSync(wctx.Done(), synced...) {
		return fmt.Errorf("the dashboard's watches did not sync within %s", timeout)
	}
	return nil
}

// kind finds a kind by its name.
func (s *store) kind(name string) (Kind, bool) {
	for _, k := range s.kinds {
		if k.Name() == name {
			return k, true
		}
	}
	return nil, false
}

// set returns a set of kind k from the cache, in apps/v1 shape, and the
// cached object itself.
func (s *store) set(k Kind, namespace, name string) (*appsv1.StatefulSet, any, bool) {
	obj, ok, err := k.Informer().GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, nil, false
	}
	set, ok := k.View(obj)
	return set, obj, ok
}

// podsOf returns the pods whose controller is set.
func (s *store) podsOf(set *appsv1.StatefulSet) []*corev1.Pod {
	objs, _ := s.pods.GetIndexer().ByIndex(byController, string(set.UID))
	out := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			out = append(out, p)
		}
	}
	return out
}

// revisionsOf returns the revisions whose controller is set.
func (s *store) revisionsOf(set *appsv1.StatefulSet) []*appsv1.ControllerRevision {
	objs, _ := s.revisions.GetIndexer().ByIndex(byController, string(set.UID))
	out := make([]*appsv1.ControllerRevision, 0, len(objs))
	for _, o := range objs {
		if r, ok := o.(*appsv1.ControllerRevision); ok {
			out = append(out, r)
		}
	}
	return out
}

// claimsIn returns the namespace's claims by name.
func (s *store) claimsIn(namespace string) map[string]*corev1.PersistentVolumeClaim {
	objs, _ := s.claims.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	out := make(map[string]*corev1.PersistentVolumeClaim, len(objs))
	for _, o := range objs {
		if c, ok := o.(*corev1.PersistentVolumeClaim); ok {
			out[c.Name] = c
		}
	}
	return out
}

// eventsIn returns the namespace's events.
func (s *store) eventsIn(namespace string) []*corev1.Event {
	objs, _ := s.events.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	out := make([]*corev1.Event, 0, len(objs))
	for _, o := range objs {
		if e, ok := o.(*corev1.Event); ok {
			out = append(out, e)
		}
	}
	return out
}
