package dashboard

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// Kind adapts one kind of StatefulSet to the dashboard: how its sets are
// listed and watched, how they read as apps/v1 (every view, the planner
// included, reads that shape; a superset kind loses only its extra fields
// there) and how they are acted on. Pods, claims, revisions and events are
// the same for every kind and are watched once by the server.
type Kind interface {
	// Name is the kind in URLs and on the page, as "statefulsets.apps".
	Name() string
	// GroupKind is what owner references of its pods and revisions name.
	GroupKind() schema.GroupKind
	// Informer is the kind's shared informer of sets. It comes from the
	// server's informer factory (factory.InformerFor for a kind of another
	// API group), which starts it with the others.
	Informer() cache.SharedIndexInformer
	// View returns a cached set in apps/v1 shape; false when obj is not one
	// of this kind's sets.
	View(obj any) (*appsv1.StatefulSet, bool)
	// Actions reads the set through the API, as the server's user, for one
	// action.
	Actions(ctx context.Context, namespace, name string) (Actions, error)
}

// Actions are the operations the page offers on one set; each returns the
// sentence to show, the same one `ordinal rollout` prints.
type Actions interface {
	Pause(ctx context.Context) (string, error)
	Resume(ctx context.Context) (string, error)
	Undo(ctx context.Context, toRevision int64) (string, error)
	Restart(ctx context.Context, now time.Time) (string, error)
}

// PodDeleter is the extension point for kinds whose sets let a user delete
// a chosen pod from the page, which the extended kind's API defines.
// apps/v1 does not implement it: deleting a pod of such a set is left to
// kubectl, and the page shows no delete button.
type PodDeleter interface {
	DeletePod(ctx context.Context, namespace, set string, ordinal int32) (string, error)
}

// Reserver is the extension point for kinds whose sets reserve ordinals
// that never get a pod; their cells show the state "reserved". apps/v1
// has no reserved ordinals and does not implement it.
type Reserver interface {
	Reserved(obj any) []int32
}
