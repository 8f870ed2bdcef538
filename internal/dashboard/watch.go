package dashboard

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// watch turns every change in the store into dirty topics of the hub:
// a set's own page and the list for the set and its pods, the set's page
// for its revisions, and every open page of the namespace for claims and
// events (their owners are not always the set).
func (s *Server) watch() error {
	for _, k := range s.store.kinds {
		kind := k
		if err := handle(k.Informer(), func(m metav1.Object) {
			s.hub.mark(topicSets, setTopic(kind.Name(), m.GetNamespace(), m.GetName()))
		}); err != nil {
			return err
		}
	}
	owned := func(list bool) func(metav1.Object) {
		return func(m metav1.Object) {
			if t, ok := s.ownerTopic(m); ok {
				if list {
					s.hub.mark(topicSets, t)
				} else {
					s.hub.mark(t)
				}
			}
		}
	}
	inNamespace := func(m metav1.Object) {
		prefix := "/" + m.GetNamespace() + "/"
		s.hub.markWhere(func(t string) bool { return strings.HasPrefix(t, "set/") && strings.Contains(t, prefix) })
	}
	for inf, f := range map[cache.SharedIndexInformer]func(metav1.Object){
		s.store.pods: owned(true), s.store.revisions: owned(false),
		s.store.claims: inNamespace, s.store.events: inNamespace,
	} {
		if err := handle(inf, f); err != nil {
			return err
		}
	}
	return nil
}

// ownerTopic is the page of the set that controls m.
func (s *Server) ownerTopic(m metav1.Object) (string, bool) {
	ref := metav1.GetControllerOfNoCopy(m)
	if ref == nil {
		return "", false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return "", false
	}
	for _, k := range s.store.kinds {
		if k.GroupKind() == (schema.GroupKind{Group: gv.Group, Kind: ref.Kind}) {
			return setTopic(k.Name(), m.GetNamespace(), ref.Name), true
		}
	}
	return "", false
}

// handle calls f with the object of every add, update and delete.
func handle(inf cache.SharedIndexInformer, f func(metav1.Object)) error {
	call := func(obj any) {
		if m, err := meta(obj); err == nil {
			f(m)
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    call,
		UpdateFunc: func(_, obj any) { call(obj) },
		DeleteFunc: call,
	})
	return err
}
