package setkind

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Kind is one kind of StatefulSet.
type Kind uint8

const (
	// Any is the zero Kind: no kind decided yet, as for a set named by a
	// bare name, which may be of either kind. It has no facts.
	Any Kind = iota
	// AppsV1 is apps/v1's StatefulSet (sts).
	AppsV1
	// Extended is apps.ordinal.dev/v1alpha1's StatefulSet (osts).
	Extended
	// end follows the last kind; a test holds All and the table to it.
	end
)

// All is every kind, for code and tests that must handle each one.
var All = []Kind{AppsV1, Extended}

// facts are what tells one kind apart from the others.
type facts struct {
	gvk schema.GroupVersionKind
	// resource is how kubectl names the kind's objects in messages,
	// before the slash.
	resource string
	// short is the kind's short name.
	short string
	// keyPrefix starts the work-queue key of a set of the kind.
	keyPrefix string
}

// table holds the facts of every kind, and is the only place they are
// written down. An apps/v1 set's key is upstream's "<namespace>/<name>";
// an extended set's is "osts:<namespace>/<name>". A colon cannot appear
// in a namespace, so the two never meet, and two sets of one name, one of
// each kind, have their own state.
var table = map[Kind]facts{
	AppsV1:   {gvk: appsv1.SchemeGroupVersion.WithKind("StatefulSet"), resource: "statefulset.apps", short: "sts", keyPrefix: ""},
	Extended: {gvk: v1alpha1.Kind, resource: "statefulset.apps.ordinal.dev", short: "osts", keyPrefix: "osts:"},
}

func (k Kind) facts() facts {
	f, ok := table[k]
	if !ok {
		panic(fmt.Sprintf("setkind: %s has no facts; a kind must be one of %v", k, All))
	}
	return f
}

// GroupVersionKind is the kind's group, version and kind, as owner
// references and a set's type name it.
func (k Kind) GroupVersionKind() schema.GroupVersionKind { return k.facts().gvk }

// Group is the kind's API group: "apps" or "apps.ordinal.dev".
func (k Kind) Group() string { return k.facts().gvk.Group }

// APIVersion is the kind's group and version: "apps/v1" or
// "apps.ordinal.dev/v1alpha1".
func (k Kind) APIVersion() string { return k.facts().gvk.GroupVersion().String() }

// Resource is how kubectl names the kind's objects in messages, before
// the slash: "statefulset.apps" or "statefulset.apps.ordinal.dev".
func (k Kind) Resource() string { return k.facts().resource }

// Short is the kind's short name: "sts" or "osts".
func (k Kind) Short() string { return k.facts().short }

// String is the kind's short name, "any" for Any.
func (k Kind) String() string {
	if f, ok := table[k]; ok {
		return f.short
	}
	if k == Any {
		return "any"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Key is the work-queue key of the set of this kind named name in
// namespace.
func (k Kind) Key(namespace, name string) string {
	return k.facts().keyPrefix + namespace + "/" + name
}

// ParseKey reads a key Key made: the kind, namespace and name; false when
// key is not one.
func ParseKey(key string) (kind Kind, namespace, name string, ok bool) {
	best := -1
	for _, k := range All {
		if p := k.facts().keyPrefix; len(p) > best && strings.HasPrefix(key, p) {
			kind, best = k, len(p)
		}
	}
	if best < 0 {
		return Any, "", "", false
	}
	namespace, name, ok = strings.Cut(key[best:], "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return Any, "", "", false
	}
	return kind, namespace, name, true
}

// Of is the kind a set stands for: the kind its type names (osts.View
// gives an extended set's view the extended kind's), else apps/v1, whose
// sets arrive from a typed informer with no type at all.
func Of(set *appsv1.StatefulSet) Kind {
	gvk := set.GroupVersionKind()
	for _, k := range All {
		if k.facts().gvk == gvk {
			return k
		}
	}
	return AppsV1
}

// OfOwner is the kind of set an owner reference names; false when it
// names no StatefulSet of any kind.
func OfOwner(ref *metav1.OwnerReference) (Kind, bool) {
	for _, k := range All {
		if gvk := k.facts().gvk; ref.Kind == gvk.Kind && ref.APIVersion == gvk.GroupVersion().String() {
			return k, true
		}
	}
	return Any, false
}
