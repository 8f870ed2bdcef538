package setops

import (
	"context"
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// extendedDoor is the extended kind's door: the set is read and patched
// through its own client (Target.sets), every read works on its apps/v1
// view, and the planner gets the kind's inputs. Its pause and resume are
// in pause_extended.go, its undo in undo.go.
type extendedDoor struct{}

func (extendedDoor) kind() setkind.Kind { return setkind.Extended }

// load fails when the caller has no client of the kind.
func (extendedDoor) load(ctx context.Context, client kubernetes.Interface, ext *ostsclient.Client, namespace, name string) (*Target, error) {
	if ext == nil {
		return nil, fmt.Errorf("no client for %s", ExtendedKind.Resource())
	}
	sets := ext.StatefulSets(namespace)
	set, err := sets.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &Target{Client: client, Set: osts.View(set), Extended: set, sets: sets}, nil
}

func (extendedDoor) refresh(ctx context.Context, t *Target) error {
	set, err := t.sets.Get(ctx, t.Set.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	t.Set, t.Extended = osts.View(set), set
	return nil
}

func (extendedDoor) patch(ctx context.Context, t *Target, pt types.PatchType, data []byte) error {
	_, err := t.sets.Patch(ctx, t.Set.Name, pt, data, metav1.PatchOptions{})
	return err
}

// mapPatchType is a JSON merge patch: a custom resource takes no
// strategic merge patch.
func (extendedDoor) mapPatchType() types.PatchType { return types.MergePatchType }

// arg is "osts/<name>", as a bare name finds an apps/v1 set first.
func (extendedDoor) arg(name string) string { return ExtendedKind.Short() + "/" + name }

func (extendedDoor) choosable(*Target) error { return nil }

// storageClasses lists the cluster's StorageClasses for an InPlace set;
// nil for other sets or when they cannot be listed (a user allowed only
// into a namespace), which the plan then does not judge.
func (extendedDoor) storageClasses(ctx context.Context, t *Target) []*storagev1.StorageClass {
	if t.Extended.Spec.VolumeClaimUpdateStrategy.Type != v1alpha1.InPlaceVolumeClaimUpdateStrategyType {
		return nil
	}
	list, err := t.Client.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := make([]*storagev1.StorageClass, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

// revisionOptions: an extended set's revisions may hold its claim
// templates too.
func (extendedDoor) revisionOptions(ext *v1alpha1.StatefulSet) revision.Options {
	return osts.RevisionOptions(ext)
}

// plannerInputs are the kind's spec (osts.Extended) and what was observed
// around it: the set's revisions and, when read, the StorageClasses, the
// nodes' domains and the nodes the node-failure policy judges. Without
// node facts the plan is made as for a set without that policy: what the
// controller would judge cannot be told here.
func (extendedDoor) plannerInputs(o Observed) (*planner.Extended, planner.Observed) {
	set := o.Extended
	if o.NodeFacts == nil && set.Spec.NodeFailurePolicy != nil {
		set = set.DeepCopy()
		set.Spec.NodeFailurePolicy = nil
	}
	in, obs := osts.Extended(set), osts.Observe(set)
	obs.Revisions = o.Revisions
	if o.NodeFacts != nil {
		// The quarantine is the controller's (0: not known here); what it
		// reported of it and of its permission comes from the status.
		obs.Nodes = osts.JudgeNodes(in.NodeFailure, o.Pods, o.Claims, o.NodeFacts)
		if obs.Nodes != nil {
			o.NodeFacts.overQuarantine(obs.Nodes)
			obs.Nodes.ClaimDeletion = claimDeletion(o.Extended)
		}
	}
	if o.StorageClasses != nil {
		osts.StorageClasses(in, &obs, o.StorageClasses)
	}
	if o.Nodes != nil {
		osts.Domains(in, &obs, o.Nodes)
	}
	if o.Budgets != nil {
		obs.Budgets = osts.BudgetFacts(o.Extended, o.Budgets, o.Pods)
	}
	obs.EvictionRequests = osts.EvictionRequests(o.Evictions)
	return in, obs
}

// explain says what the kind's rollout safety does next.
func (extendedDoor) explain(report *rolloutview.PlanReport, in planner.Input, plan planner.Plan) {
	rolloutview.ExtendPlan(report, in.Extended, in.Observed, plan)
}

// statusClaims: the claims' progress per ordinal, for a set whose claims
// follow their templates in place.
func (extendedDoor) statusClaims(t *Target) bool {
	return t.Extended.Spec.VolumeClaimUpdateStrategy.Type == v1alpha1.InPlaceVolumeClaimUpdateStrategyType
}

func (extendedDoor) snapshot(o Observed, update string) rolloutview.Snapshot {
	return rolloutview.NewExtendedSnapshot(o.Set, o.Extended, osts.Reserved(o.Extended), o.Pods, o.Claims, update)
}
