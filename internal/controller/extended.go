package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
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
	c.extStored.read(key, func(held **v1alpha1.StatefulSet) { out = fresher(held, set) })
	return out
}

// writeExtendedStatus stores the extended set's status from the plan
// unless it is already there, re-reading the set on conflict.
func (c *Controller) writeExtendedStatus(ctx context.Context, t *target, plan planner.Plan) error {
	return c.storeExtendedStatus(ctx, t, c.extendedStatus(t, plan))
}

// extendedStatus is the extended set's status from the plan, with the
// condition of the objects its revisions hold (osts.ConfigCondition).
func (c *Controller) extendedStatus(t *target, plan planner.Plan) v1alpha1.StatefulSetStatus {
	want := osts.Status(t.extended, plan.Status, plan.Extended)
	var hold *osts.ConfigHold
	if t.config != nil {
		hold = t.config.hold
	}
	osts.ConfigCondition(t.extended, &want, hold, c.now())
	return want
}

// storeExtendedStatus stores want as the extended set's status unless it
// is already there, re-reading the set on conflict.
func (c *Controller) storeExtendedStatus(ctx context.Context, t *target, want v1alpha1.StatefulSetStatus) error {
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
		if stored, err = sets.UpdateStatus(ctx, cur, metav1.UpdateOptions{FieldManager: v1alpha1.ControllerFieldManager}); err == nil {
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
	c.extStored.update(t.key, func(held **v1alpha1.StatefulSet) { *held = stored })
	return nil
}

// extendedStatusEqual compares two statuses as the API stores them.
func extendedStatusEqual(a, b v1alpha1.StatefulSetStatus) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// recordHold records the event of a hold the plan's status recorded or
// ended, once that status is written. The failure policy's decisions
// live in the status alone: the controller never writes an extended
// set's spec.
func (c *Controller) recordHold(t *target, plan planner.Plan) {
	if plan.Extended == nil || plan.Extended.HoldEvent == nil {
		return
	}
	ev := plan.Extended.HoldEvent
	typ := corev1.EventTypeNormal
	if ev.Warning {
		typ = corev1.EventTypeWarning
	}
	c.recorder.Event(t.view, typ, ev.Reason, ev.Message)
}

// extendedHoldable reports whether the extended part of a status change
// may wait like a count-only change: the same conditions (by type, status
// and reason), blocked pods, last completed revision, rollback and hold,
// and no fewer pods at the update revision Ready or Available than old
// counts (as statusBound writes apps/v1's counts going down at once).
// Other counts, messages and the progress time may lag by the hold.
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
		reflect.DeepEqual(old.Hold, want.Hold) && old.LabelSelector == want.LabelSelector &&
		want.UpdatedReadyReplicas >= old.UpdatedReadyReplicas && want.UpdatedAvailableReplicas >= old.UpdatedAvailableReplicas
}
