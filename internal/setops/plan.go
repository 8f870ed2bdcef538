package setops

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
)

// Observed is a set with everything the planner reads: its revisions
// (oldest first), the pods it controls and the namespace's claims by name.
type Observed struct {
	// Set is the apps/v1 set, or the apps/v1 view of Extended.
	Set *appsv1.StatefulSet
	// Extended is the extended set; nil for apps/v1.
	Extended  *v1alpha1.StatefulSet
	Revisions []*appsv1.ControllerRevision
	Pods      []*corev1.Pod
	Claims    map[string]*corev1.PersistentVolumeClaim
	// NodeFacts are the nodes and volumes the node-failure pass of an
	// extended set judges; nil for apps/v1.
	NodeFacts *NodeFacts
	// StorageClasses are the cluster's classes, for an InPlace extended
	// set; nil when not read (another kind of set, or no permission to
	// list them: the plan then cannot tell a grow the class refuses).
	StorageClasses []*storagev1.StorageClass
	// Nodes are the cluster's nodes, for an extended set with
	// rollingUpdate.topology; nil when not read (no topology, or no
	// permission to list them: the plan then holds the rollout, saying
	// why).
	Nodes []*corev1.Node
	// Group are the extended sets of the namespace, for a set in a
	// rollout group; nil otherwise.
	Group []*v1alpha1.StatefulSet
	// Budgets are the namespace's PodDisruptionBudgets, for an extended
	// set; nil when not read (apps/v1, or no permission to list them: the
	// plan then says nothing of the budgets that select the set's pods).
	Budgets []*policyv1.PodDisruptionBudget
	// Evictions are the Evictions of an extended set's pods, where the
	// API server serves them (evictions.go); nil otherwise.
	Evictions []*lifecyclev1alpha1.Eviction
}

// Observe reads the set's revisions, pods and claims with plain List
// calls, the way the controller observes them.
func (t *Target) Observe(ctx context.Context) (Observed, error) {
	o := Observed{Set: t.Set, Extended: t.Extended}
	var err error
	if o.Revisions, err = t.Revisions(ctx); err != nil {
		return Observed{}, err
	}
	if err := t.configView(ctx, &o); err != nil {
		return Observed{}, err
	}
	if o.Pods, err = t.Pods(ctx); err != nil {
		return Observed{}, err
	}
	if o.Claims, err = t.Claims(ctx); err != nil {
		return Observed{}, err
	}
	o.StorageClasses = t.door().storageClasses(ctx, t)
	o.NodeFacts = t.door().nodeFacts(ctx, t, o)
	o.Nodes = topologyNodes(ctx, t)
	o.Budgets = namespaceBudgets(ctx, t)
	o.Evictions = setEvictions(ctx, t)
	if o.Group, err = t.groupSets(ctx); err != nil {
		return Observed{}, err
	}
	return o, nil
}

// PlanReport runs the controller's planner on o and describes its plan,
// without writing anything, not even a revision a new template needs. For
// an extended set the planner gets the kind's inputs (osts.Extended), as
// the controller gives them, and the report says what its rollout safety
// does next.
func PlanReport(o Observed, now time.Time) (rolloutview.PlanReport, error) {
	res, err := revision.ResolveWith(o.Set, o.Revisions, RevisionOptions(o.Extended))
	if err != nil {
		return rolloutview.PlanReport{}, fmt.Errorf("resolving the revisions of %s/%s: %w", rolloutview.Resource(o.Set), o.Set.Name, err)
	}
	d := doorOf(o.Extended)
	in := planner.Input{
		Set: o.Set, Pods: o.Pods, Claims: o.Claims,
		Current: res.Current, Update: res.Update, CollisionCount: res.CollisionCount, Now: now,
	}
	in.Extended, in.Observed = d.plannerInputs(o)
	if in.Extended != nil {
		// Without the controller's memory of turns: the sets' status
		// records every turn granted.
		pending := res.Current.Name != planner.RolloutTarget(in.Extended, res.Update.Name)
		in.Observed.Group = osts.GroupTurn(o.Extended, o.Group, pending, "")
	}
	plan := planner.Compute(in)
	report := rolloutview.NewPlanReport(o.Set, res, o.Revisions, plan)
	d.explain(&report, in, plan)
	return report, nil
}

// Snapshot is the status view of o: its cells by ordinal, the verdict on
// its rollout and, for an extended set, what the kind adds.
func Snapshot(o Observed, update string) rolloutview.Snapshot {
	return doorOf(o.Extended).snapshot(o, update)
}

// StatusSnapshot reads what the status view of the set shows, with as
// few requests as a watch can repeat: its pods, its revisions only while
// the controller has not observed its generation (PendingUpdate), and its
// claims only when the view shows them (an extended set whose claims
// follow their templates in place).
func (t *Target) StatusSnapshot(ctx context.Context) (rolloutview.Snapshot, error) {
	pods, err := t.Pods(ctx)
	if err != nil {
		return rolloutview.Snapshot{}, err
	}
	var revs []*appsv1.ControllerRevision
	if t.Set.Generation != t.Set.Status.ObservedGeneration {
		if revs, err = t.Revisions(ctx); err != nil {
			return rolloutview.Snapshot{}, err
		}
	}
	update, err := PendingUpdate(t.Set, revs, RevisionOptions(t.Extended))
	if err != nil {
		return rolloutview.Snapshot{}, err
	}
	o := Observed{Set: t.Set, Extended: t.Extended, Pods: pods}
	if t.door().statusClaims(t) {
		if o.Claims, err = t.Claims(ctx); err != nil {
			return rolloutview.Snapshot{}, err
		}
	}
	return Snapshot(o, update), nil
}

// PendingUpdate resolves the update revision while the controller has not
// yet observed the set's generation, so cells are not judged against the
// previous update revision; otherwise status.updateRevision is right and
// it returns "".
func PendingUpdate(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, opts revision.Options) (string, error) {
	if set.Generation == set.Status.ObservedGeneration {
		return "", nil
	}
	res, err := revision.ResolveWith(set, revs, opts)
	if err != nil {
		return "", fmt.Errorf("resolving the update revision of %s/%s: %w", rolloutview.Resource(set), set.Name, err)
	}
	return res.Update.Name, nil
}

// RevisionOptions says what the revisions of a set hold, as the controller
// resolves them: an extended set's (nil for apps/v1) may hold its claim
// templates too.
func RevisionOptions(ext *v1alpha1.StatefulSet) revision.Options {
	return doorOf(ext).revisionOptions(ext)
}
