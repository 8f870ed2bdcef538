package setops

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// A door is everything setops does differently for one kind of set. Each
// kind has one (appsV1Door, extendedDoor), listed in doors; the exported
// operations only pick the door (doorOf) and go through it, so an
// operation that differs by kind is a method here, and does not compile
// until every kind has it.
type door interface {
	kind() setkind.Kind
	// load reads the set named name in namespace. A missing set is the
	// API's NotFound error, unwrapped, so its message is the API's own.
	load(ctx context.Context, client kubernetes.Interface, ext *ostsclient.Client, namespace, name string) (*Target, error)
	// refresh re-reads t's set.
	refresh(ctx context.Context, t *Target) error
	// patch sends data, a patch of type pt, to t's set.
	patch(ctx context.Context, t *Target, pt types.PatchType, data []byte) error
	// mapPatchType is the type a patch that only adds to maps is sent as.
	mapPatchType() types.PatchType
	// arg is how a command line names the kind's set called name.
	arg(name string) string
	// pause holds t's rollout and returns the sentence to show.
	pause(ctx context.Context, t *Target) (string, error)
	// resume lets t's rollout go on and returns the sentence to show.
	resume(ctx context.Context, t *Target) (string, error)
	// undo puts the template of rev, one of t's revisions, back.
	undo(ctx context.Context, t *Target, rev *appsv1.ControllerRevision) error
	// choosable is nil when a user may choose which of t's pods go, else
	// why not (ErrNeedsExtended).
	choosable(t *Target) error
	// storageClasses lists the StorageClasses t's plan reads; nil when it
	// reads none or they cannot be listed.
	storageClasses(ctx context.Context, t *Target) []*storagev1.StorageClass
	// nodeFacts reads the nodes o's pods run on and the volumes its
	// claims are bound to, for the node-failure pass; nil when the kind
	// has none.
	nodeFacts(ctx context.Context, t *Target, o Observed) *NodeFacts
	// revisionOptions says what the revisions of the set ext (nil for
	// apps/v1) hold, as the controller resolves them.
	revisionOptions(ext *v1alpha1.StatefulSet) revision.Options
	// plannerInputs is what the planner is told of o beyond o.Set, as the
	// controller tells it: the spec (nil for apps/v1) and what was
	// observed around it.
	plannerInputs(o Observed) (*planner.Extended, planner.Observed)
	// explain adds to report what the plan does for in, the inputs
	// plannerInputs gave.
	explain(report *rolloutview.PlanReport, in planner.Input, plan planner.Plan)
	// snapshot is the status view of o against the update revision.
	snapshot(o Observed, update string) rolloutview.Snapshot
	// statusClaims says whether t's status view shows its claims.
	statusClaims(t *Target) bool
}

var (
	_ door = appsV1Door{}
	_ door = extendedDoor{}
)

// doors has one door per kind; a test checks it against setkind.All.
var doors = map[setkind.Kind]door{
	setkind.AppsV1:   appsV1Door{},
	setkind.Extended: extendedDoor{},
}

// kindOf is the one place setops tells the kinds apart: an extended set
// comes with its object (Target.Extended, Observed.Extended), an apps/v1
// set without one.
func kindOf(ext *v1alpha1.StatefulSet) setkind.Kind {
	if ext != nil {
		return setkind.Extended
	}
	return setkind.AppsV1
}

// doorOf is the door of the set whose extended object is ext (nil for
// apps/v1).
func doorOf(ext *v1alpha1.StatefulSet) door { return doorFor(kindOf(ext)) }

// doorFor is kind's door. A kind without one is a programming error,
// which fails loudly here rather than taking another kind's door.
func doorFor(kind setkind.Kind) door {
	d, ok := doors[kind]
	if !ok {
		panic(fmt.Sprintf("setops: no door for kind %s", kind))
	}
	return d
}

// door is the door of t's kind.
func (t *Target) door() door { return doorOf(t.Extended) }
