package controller

import (
	"context"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// extendedPrefix starts the work-queue key of an extended set
// ("osts:<namespace>/<name>"); an apps/v1 set's key is upstream's
// "<namespace>/<name>". A colon cannot appear in a namespace, so the two
// never meet, and a set of each kind with the same name has its own state.
const extendedPrefix = "osts:"

func extendedKey(namespace, name string) string { return extendedPrefix + namespace + "/" + name }

// splitExtendedKey returns the namespace and name of an extended set's key.
func splitExtendedKey(key string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(key, extendedPrefix)
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, "/")
	return namespace, name, ok
}

// kindOf is the kind a set view stands for: the extended kind when the
// view says so in its type (osts.View), else apps/v1.
func kindOf(set *appsv1.StatefulSet) schema.GroupVersionKind {
	if set.GroupVersionKind() == v1alpha1.Kind {
		return v1alpha1.Kind
	}
	return setKind
}

// isSetKind reports whether an owner reference names a set of either kind.
func isSetKind(ref *metav1.OwnerReference) (extended, ok bool) {
	switch {
	case ref.Kind == setKind.Kind && ref.APIVersion == setKind.GroupVersion().String():
		return false, true
	case ref.Kind == v1alpha1.Kind.Kind && ref.APIVersion == v1alpha1.SchemeGroupVersion.String():
		return true, true
	}
	return false, false
}

// target is the set one sync works on: its apps/v1 view, which the planner
// and the pod control read (for an extended set, osts.View of it, whose
// type makes events and owner references name the extended kind), and, for
// an extended set, the object itself and what the planner is told beyond
// the view.
type target struct {
	key      string
	view     *appsv1.StatefulSet
	extended *v1alpha1.StatefulSet
	inputs   *planner.Extended
	// revisions says what the set's revisions hold beyond the template.
	revisions revision.Options
}

// fresh reads the set from the API server, past the cache, for adoption's
// recheck.
func (c *Controller) fresh(ctx context.Context, set *appsv1.StatefulSet) (metav1.Object, error) {
	if kindOf(set) == v1alpha1.Kind && c.ext != nil {
		return c.ext.client.StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
	}
	return c.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
}
