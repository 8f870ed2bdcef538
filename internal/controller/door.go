package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// A kindDoor is everything a sync does differently for one kind of set.
// Each kind has one (appsV1Door, extendedDoor), listed in doors; the sync
// asks its target's door (target.door) and never the kind, so a step that
// differs by kind is a method here, and does not compile until every kind
// has it. Doors hold nothing: what they read and write is the
// controller's.
type kindDoor interface {
	kind() setkind.Kind
	// target reads the set ns/name, whose key is key, from the cache and
	// builds what a sync of it works on; NotFound when it is gone.
	target(c *Controller, key, ns, name string) (*target, error)
	// fresh reads set from the API server, past the cache, for
	// adoption's recheck.
	fresh(ctx context.Context, c *Controller, set *appsv1.StatefulSet) (metav1.Object, error)
	// cachesReady reports whether the caches the plan of t reads have
	// synced; the first call starts them.
	cachesReady(c *Controller, t *target) bool
	// prepare runs before t is planned; planned is false when the sync
	// ends there, with requeue and err.
	prepare(ctx context.Context, c *Controller, t *target) (planned bool, requeue time.Duration, err error)
	// stored is t's set with the freshest status the controller knows:
	// its own last write when the cache lags.
	stored(c *Controller, t *target) *appsv1.StatefulSet
	// revisionCreated completes rev, the update revision about to be
	// created for t.
	revisionCreated(t *target, rev *appsv1.ControllerRevision) error
	// observeAround adds what the plan observes around t once its
	// revisions (revs) and pods are read.
	observeAround(ctx context.Context, c *Controller, t *target, in *planner.Input, revs []*appsv1.ControllerRevision)
	// groupTurn is t's turn in its rollout group and how soon to look
	// again while it waits; nil without a group.
	groupTurn(c *Controller, t *target, in planner.Input) (*planner.GroupTurn, time.Duration)
	// reconcileBudget makes the budget t keeps what the plan sized, from
	// the budgets seen.
	reconcileBudget(ctx context.Context, c *Controller, t *target, seen *planner.Budgets, plan planner.Plan) error
	// holdable reports whether the plan's status change may be held back
	// as a count-only change (statusBound judged the counts).
	holdable(c *Controller, t *target, plan planner.Plan) bool
	// writeStatus stores the plan's status and returns the set as stored.
	writeStatus(ctx context.Context, c *Controller, t *target, plan planner.Plan) (*appsv1.StatefulSet, error)
	// statusWritten runs after the plan's status was written, held back
	// or kept, unless its write failed.
	statusWritten(c *Controller, t *target, plan planner.Plan)
	// answerEvictions writes the plan's answers to the Evictions of the
	// pods of set (t's, as stored) and returns when the next heartbeat is
	// due.
	answerEvictions(ctx context.Context, c *Controller, set *appsv1.StatefulSet, plan planner.Plan) (time.Duration, error)
	// requeue is when to look at t again, given the sync's requeue.
	requeue(t *target, requeue time.Duration) time.Duration
	// podToCreate is the pod the pod control creates for the plan's pod;
	// responder says whether the controller answers Evictions.
	podToCreate(pod *corev1.Pod, responder bool) *corev1.Pod
	// nodeJudged reports whether the plan of the kind's sets reads their
	// nodes' state, so that a change of it must wake them.
	nodeJudged() bool
	// enqueueOwner wakes the set of the kind ref names in namespace, if
	// the cache has it with ref's UID.
	enqueueOwner(c *Controller, namespace string, ref *metav1.OwnerReference)
}

var (
	_ kindDoor = appsV1Door{}
	_ kindDoor = extendedDoor{}
)

// doors has one door per kind; a test checks it against setkind.All.
var doors = map[setkind.Kind]kindDoor{
	setkind.AppsV1:   appsV1Door{},
	setkind.Extended: extendedDoor{},
}

// doorFor is kind's door. A kind without one is a programming error,
// which fails loudly here rather than taking another kind's door.
func doorFor(kind setkind.Kind) kindDoor {
	d, ok := doors[kind]
	if !ok {
		panic(fmt.Sprintf("controller: no door for kind %s", kind))
	}
	return d
}

// doorOf is the door of set's kind, which its type names (setkind.Of).
func doorOf(set *appsv1.StatefulSet) kindDoor { return doorFor(setkind.Of(set)) }

// kind is t's kind, which its door serves.
func (t *target) kind() setkind.Kind { return t.door.kind() }
