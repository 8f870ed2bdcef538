package dashboard

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ordinal-sh/ordinal/internal/setops"
)

// renderTopic is the payload of a topic: the list, or one set's page.
func (s *Server) renderTopic(topic string) ([]byte, error) {
	if topic == topicSets {
		return json.Marshal(s.list())
	}
	parts := strings.SplitN(strings.TrimPrefix(topic, "set/"), "/", 3)
	if len(parts) != 3 {
		return nil, fmt.Errorf("unknown topic %q", topic)
	}
	d, err := s.detail(parts[0], parts[1], parts[2])
	if err != nil {
		return json.Marshal(map[string]string{"error": err.Error()})
	}
	return json.Marshal(d)
}

// list summarizes every set of every kind, by namespace and name.
func (s *Server) list() []Summary {
	out := []Summary{}
	for _, k := range s.store.kinds {
		for _, obj := range k.Informer().GetStore().List() {
			set, ok := k.View(obj)
			if !ok {
				continue
			}
			o := observed{kind: k, obj: obj, Observed: setops.Observed{
				Set: set, Extended: extendedOf(obj), Pods: s.store.podsOf(set),
				Revisions: setops.OwnedRevisions(set, s.store.revisionsOf(set)),
			}}
			out = append(out, summarize(k.Name(), snapshot(o)))
		}
	}
	slices.SortFunc(out, func(a, b Summary) int {
		return strings.Compare(a.Namespace+"/"+a.Name+"/"+a.Kind, b.Namespace+"/"+b.Name+"/"+b.Kind)
	})
	return out
}

// errNotFound is a set missing from the cache.
type errNotFound struct{ what string }

func (e errNotFound) Error() string { return e.what + " not found" }

// observe reads one set and everything its page shows from the cache.
func (s *Server) observe(kind, namespace, name string) (observed, error) {
	k, ok := s.store.kind(kind)
	if !ok {
		return observed{}, errNotFound{fmt.Sprintf("kind %q", kind)}
	}
	set, obj, ok := s.store.set(k, namespace, name)
	if !ok {
		return observed{}, errNotFound{fmt.Sprintf("%s %s/%s", kind, namespace, name)}
	}
	return observed{kind: k, obj: obj, events: s.store.eventsIn(namespace), Observed: setops.Observed{
		Set: set, Extended: extendedOf(obj), Pods: s.store.podsOf(set), Claims: s.store.claimsIn(namespace),
		Revisions: setops.OwnedRevisions(set, s.store.revisionsOf(set)),
	}}, nil
}

func (s *Server) detail(kind, namespace, name string) (Detail, error) {
	o, err := s.observe(kind, namespace, name)
	if err != nil {
		return Detail{}, err
	}
	return detail(o, s.cfg.ReadOnly, s.now()), nil
}
