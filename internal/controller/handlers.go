package controller

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// addHandlers wires the informers' events to the queue; sets is nil when
// the controller leaves apps/v1 sets alone.
func (c *Controller) addHandlers(sets, pods, claims cache.SharedIndexInformer) error {
	if sets != nil {
		if _, err := sets.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueueSet,
			UpdateFunc: func(_, cur any) { c.enqueueSet(cur) },
			DeleteFunc: c.enqueueSet,
		}); err != nil {
			return err
		}
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.podChanged,
		UpdateFunc: c.podUpdated,
		DeleteFunc: func(obj any) {
			c.podDeleted(obj)
			c.podChanged(obj)
		},
	}); err != nil {
		return err
	}
	// Upstream does not watch claims; we do, so that a claim deleted under a
	// Pending pod, or a claim that finished terminating, wakes its set.
	_, err := claims.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, cur any) { c.claimChanged(cur) },
		DeleteFunc: c.claimChanged,
	})
	return err
}

func (c *Controller) enqueueSet(obj any) {
	if c.skipAppsV1 {
		return
	}
	if set, ok := unwrap[*appsv1.StatefulSet](obj); ok {
		c.enqueue(setkind.AppsV1.Key(set.Namespace, set.Name))
	}
}

func (c *Controller) podUpdated(old, cur any) {
	o, n := old.(*podRecord), cur.(*podRecord)
	if o.ResourceVersion() == n.ResourceVersion() {
		return
	}
	if oref, nref := o.controllerRef(), n.controllerRef(); oref != nil && (nref == nil || oref.UID != nref.UID) {
		c.enqueueOwner(o.Namespace(), oref)
	}
	c.podChanged(n)
}

// podDeleted tells the expectations that the cache saw the pod go, before
// its owner is woken.
func (c *Controller) podDeleted(obj any) {
	pod, ok := unwrap[*podRecord](obj)
	if !ok {
		return
	}
	if ref := pod.controllerRef(); ref != nil {
		kind, ours := setkind.OfOwner(ref)
		if !ours {
			// Another owner's pod: the expectations still note that
			// its UID is gone, under the key upstream would use.
			kind = setkind.AppsV1
		}
		c.exp.observedDeletion(kind.Key(pod.Namespace(), ref.Name), pod.Name(), pod.GetUID())
		if ours {
			return
		}
	}
	// A pod of someone else's that held one of a set's pod names: the set
	// may have been waiting for the name (see nameTaken).
	if parent, _, ok := planner.SplitPodName(pod.Name()); ok {
		c.enqueueByName(pod.Namespace(), parent)
	}
}

// enqueueByName wakes the sets of either kind named name.
func (c *Controller) enqueueByName(namespace, name string) {
	if set, err := c.sets.StatefulSets(namespace).Get(name); err == nil {
		c.enqueueSet(set)
	}
	if c.ext != nil {
		if set, err := c.ext.lister.Get(namespace, name); err == nil {
			c.enqueueExtended(set)
		}
	}
}

// podChanged wakes the pod's owner, or, for an orphan, every set that
// could adopt it.
func (c *Controller) podChanged(obj any) {
	pod, ok := unwrap[*podRecord](obj)
	if !ok {
		return
	}
	if ref := pod.controllerRef(); ref != nil {
		c.enqueueOwner(pod.Namespace(), ref)
		return
	}
	for _, set := range c.setsMatching(pod.Namespace(), pod.labelMap()) {
		c.enqueueSet(set)
	}
	for _, set := range c.extendedMatching(pod.Namespace(), pod.labelMap()) {
		c.enqueueExtended(set)
	}
}

func (c *Controller) enqueueOwner(namespace string, ref *metav1.OwnerReference) {
	if kind, ok := setkind.OfOwner(ref); ok {
		doorFor(kind).enqueueOwner(c, namespace, ref)
	}
}

func (c *Controller) setsMatching(namespace string, podLabels map[string]string) []*appsv1.StatefulSet {
	sets, err := c.sets.StatefulSets(namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.StatefulSet
	for _, set := range sets {
		sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(podLabels)) {
			out = append(out, set)
		}
	}
	return out
}

// claimChanged wakes the set a claim belongs to by name,
// <template>-<set>-<ordinal>. Template and set names may hold dashes, so
// each split of <template>-<set> is looked up by set name: a few cache
// reads per claim event, however many sets the namespace has.
func (c *Controller) claimChanged(obj any) {
	claim, ok := unwrap[*claimRecord](obj)
	if !ok {
		return
	}
	prefix, _, ok := planner.SplitPodName(claim.Name())
	if !ok {
		return
	}
	for i := strings.IndexByte(prefix, '-'); i >= 0; i = nextDash(prefix, i) {
		template, setName := prefix[:i], prefix[i+1:]
		if set, err := c.sets.StatefulSets(claim.Namespace()).Get(setName); err == nil && hasTemplate(set.Spec.VolumeClaimTemplates, template) {
			c.enqueueSet(set)
		}
		if c.ext == nil {
			continue
		}
		if set, err := c.ext.lister.Get(claim.Namespace(), setName); err == nil && hasTemplate(set.Spec.VolumeClaimTemplates, template) {
			c.enqueueExtended(set)
		}
	}
}

func hasTemplate(templates []corev1.PersistentVolumeClaim, name string) bool {
	for _, t := range templates {
		if t.Name == name {
			return true
		}
	}
	return false
}

// nextDash returns the index of the first dash in s after index i, or -1.
func nextDash(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '-')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// unwrap returns obj as a T, looking inside a delete tombstone.
func unwrap[T any](obj any) (T, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	t, ok := obj.(T)
	return t, ok
}

func controllerUID(refs []metav1.OwnerReference) []string {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return []string{string(r.UID)}
		}
	}
	return nil
}
