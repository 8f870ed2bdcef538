package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// extendedSets is the controller's hold on the extended kind: its client,
// informer and lister. The controller runs without it when the cluster
// has no CustomResourceDefinition for the kind.
type extendedSets struct {
	client   *ostsclient.Client
	informer cache.SharedIndexInformer
	lister   *ostsclient.Lister
}

func newExtendedSets(client *ostsclient.Client, namespace string) (*extendedSets, error) {
	inf, err := ostsclient.NewInformer(client.Dynamic(), namespace, 0, nil)
	if err != nil {
		return nil, err
	}
	return &extendedSets{client: client, informer: inf, lister: ostsclient.NewLister(inf.GetIndexer())}, nil
}

func (c *Controller) enqueueExtended(obj any) {
	if set, ok := unwrap[*v1alpha1.StatefulSet](obj); ok {
		c.enqueue(setkind.Extended.Key(set.Namespace, set.Name))
	}
}

// extendedTarget reads an extended set from the cache and builds what a
// sync of it works on; NotFound when it is gone.
func (c *Controller) extendedTarget(key, ns, name string) (*target, error) {
	if c.ext == nil {
		return nil, apierrors.NewNotFound(v1alpha1.Resource.GroupResource(), name)
	}
	set, err := c.ext.lister.Get(ns, name)
	if err != nil {
		return nil, err
	}
	set = c.storedExtended(key, set)
	inputs := osts.Extended(set)
	inputs.Budgets.Refused = c.evictions.of(key)
	c.storageClasses(inputs)
	c.topologyNodes(inputs)
	return &target{key: key, kind: setkind.Extended, view: osts.View(set), extended: set, inputs: inputs, revisions: osts.RevisionOptions(set)}, nil
}

// newRoleProber builds the role prober of the extended kind: it reads sets
// and pods from the controller's caches, calls through net's address
// policy without its proxy, and keeps within limits.
func (c *Controller) newRoleProber(hooks *hookNet, simulated *SimulatedPods, limits RoleProbeOptions) *roleProber {
	return &roleProber{client: c.client, recorder: c.recorder, now: time.Now, limits: newProbeLimits(limits),
		net: &hookNet{policy: hooks.policy, lookup: hooks.lookup, simulated: simulated},
		set: func(key string) (*v1alpha1.StatefulSet, bool) {
			_, ns, name, ok := setkind.ParseKey(key)
			if !ok {
				return nil, false
			}
			set, err := c.ext.lister.Get(ns, name)
			return set, err == nil
		},
		pods: func(uid types.UID) []*podRecord {
			objs, err := c.podIdx.ByIndex(ownerIndex, string(uid))
			if err != nil {
				return nil
			}
			out := make([]*podRecord, 0, len(objs))
			for _, o := range objs {
				if r, ok := o.(*podRecord); ok {
					out = append(out, r)
				}
			}
			return out
		}}
}

// extendedMatching returns the extended sets of namespace whose selector
// matches podLabels.
func (c *Controller) extendedMatching(namespace string, podLabels map[string]string) []*v1alpha1.StatefulSet {
	if c.ext == nil {
		return nil
	}
	sets, err := c.ext.lister.List(namespace, labels.Everything())
	if err != nil {
		return nil
	}
	var out []*v1alpha1.StatefulSet
	for _, set := range sets {
		sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(podLabels)) {
			out = append(out, set)
		}
	}
	return out
}

// storedExtended returns the controller's last stored copy of set when the
// cache has not caught up with it yet, else set (see fresher).
func (c *Controller) storedExtended(key string, set *v1alpha1.StatefulSet) *v1alpha1.StatefulSet {
	out := set
	c.states.read(key, func(st *setState) { out = fresher(&st.extended, set) })
	return out
}

// writeExtendedStatus stores the extended set's status from the plan
// unless it is already there, re-reading the set on conflict.
func (c *Controller) writeExtendedStatus(ctx context.Context, t *target, plan planner.Plan) error {
	want := osts.Status(t.extended, plan.Status, plan.Extended)
	if extendedStatusEqual(t.extended.Status, want) {
		return nil
	}
	sets := c.ext.client.StatefulSets(t.extended.Namespace)
	cur := t.extended.DeepCopy()
	var stored *v1alpha1.StatefulSet
	err := conflict.Retry(func() error {
		collisions := cur.Status.CollisionCount
		cur.Status = want
		if collisions != nil && (want.CollisionCount == nil || *want.CollisionCount < *collisions) {
			cur.Status.CollisionCount = collisions
		}
		var err error
		if stored, err = sets.UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err == nil {
			return nil
		}
		if fresh, getErr := sets.Get(ctx, cur.Name, metav1.GetOptions{}); getErr == nil {
			if fresh.UID != t.extended.UID {
				return fmt.Errorf("set %s was replaced", cur.Name)
			}
			cur = fresh
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("updating status of %s: %w", t.extended.Name, err)
	}
	stored.ManagedFields = nil
	c.states.update(t.key, func(st *setState) { st.extended = stored })
	return nil
}

// extendedStatusEqual compares two statuses as the API stores them.
func extendedStatusEqual(a, b v1alpha1.StatefulSetStatus) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// applyChange carries out what the failure policy asked of the set: a
// pause sets rollingUpdate.paused; a rollback puts the template of an
// earlier revision back in spec.template (with its overrides), with a JSON patch that also tests
// the generation, so a spec someone changed meanwhile is left alone.
func (c *Controller) applyChange(ctx context.Context, t *target, change *planner.SetChange, revs []*appsv1.ControllerRevision) error {
	patch, err := changePatch(t, change, revs)
	if err != nil {
		return err
	}
	_, err = c.ext.client.StatefulSets(t.extended.Namespace).Patch(ctx, t.extended.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("applying the failure policy to %s: %w", t.extended.Name, err)
	}
	reason := "RolloutPaused"
	if change.RollbackTo != "" {
		reason = "RolledBack"
	}
	c.recorder.Event(t.view, corev1.EventTypeWarning, reason, change.Reason)
	return nil
}

func changePatch(t *target, change *planner.SetChange, revs []*appsv1.ControllerRevision) ([]byte, error) {
	ops := []map[string]any{{"op": "test", "path": "/metadata/generation", "value": t.extended.Generation}}
	if change.RollbackTo == "" {
		if t.extended.Spec.UpdateStrategy.RollingUpdate == nil {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/updateStrategy/rollingUpdate", "value": map[string]any{"paused": true}})
		} else {
			ops = append(ops, map[string]any{"op": "add", "path": "/spec/updateStrategy/rollingUpdate/paused", "value": true})
		}
		return json.Marshal(ops)
	}
	var rev *appsv1.ControllerRevision
	for _, r := range revs {
		if r.Name == change.RollbackTo {
			rev = r
		}
	}
	if rev == nil {
		return nil, fmt.Errorf("rolling back %s: revision %s is gone", t.extended.Name, change.RollbackTo)
	}
	restored, err := revision.Apply(t.view, rev)
	if err != nil {
		return nil, fmt.Errorf("rolling back %s: %w", t.extended.Name, err)
	}
	ops = append(ops, map[string]any{"op": "replace", "path": "/spec/template", "value": restored.Spec.Template})
	if revision.HasClaims(rev) {
		// A revision of an InPlace set holds its claim templates too; a
		// smaller size restored here is refused, as any shrink is.
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/volumeClaimTemplates", "value": restored.Spec.VolumeClaimTemplates})
	}
	overrides, err := osts.RestoreOverrides(t.extended, rev)
	if err != nil {
		return nil, fmt.Errorf("rolling back %s: %w", t.extended.Name, err)
	}
	return json.Marshal(append(ops, overrides...))
}

// extendedHoldable reports whether the extended part of a status change
// may wait like a count-only change: the same conditions (by type, status
// and reason), blocked pods, last completed revision and rollback. Counts,
// messages and the progress time may lag by the hold.
func extendedHoldable(old, want v1alpha1.StatefulSetStatus) bool {
	type cond struct{ t, s, r string }
	key := func(cs []metav1.Condition) []cond {
		out := make([]cond, 0, len(cs))
		for _, c := range cs {
			out = append(out, cond{c.Type, string(c.Status), c.Reason})
		}
		return out
	}
	type blocked struct {
		pod, reason string
		permanent   bool
	}
	pods := func(bs []v1alpha1.BlockedPod) []blocked {
		out := make([]blocked, 0, len(bs))
		for _, b := range bs {
			out = append(out, blocked{b.Pod, b.Reason, b.Permanent})
		}
		return out
	}
	return reflect.DeepEqual(key(old.Conditions), key(want.Conditions)) && reflect.DeepEqual(pods(old.BlockedBy), pods(want.BlockedBy)) &&
		old.LastCompletedRevision == want.LastCompletedRevision && reflect.DeepEqual(old.Rollback, want.Rollback) &&
		old.LabelSelector == want.LabelSelector
}
