package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/workloop"
)

// The controller is the eviction responder of the extended kind's pods
// where the API server serves the EvictionRequest API (Options.
// EvictionRequests, which Run learns by discovery): every pod it creates
// for an extended set names it in spec.evictionResponders (withResponder),
// at osts.ResponderPriority. The field is immutable and is not part of the
// set's template or revision, so a pod created before the API was served
// keeps none and nothing rolls for it; pods get it as they are created
// again (a rollout, a move, a restart). When an Eviction of such a pod
// makes the controller its active responder, the sync of the pod's set
// hands the request to the planner (Observed.EvictionRequests), which
// moves the pod as it moves one off a cordoned node, and writes the
// plan's answer to the Eviction's responder status (answer): progress and
// a heartbeat every HeartbeatInterval while the move waits, the
// completion time once the pod is going, or a completion that declines.

// evictionSetIndex indexes Evictions by namespace and the name of the set
// their target pod's name belongs to (<set>-<ordinal>).
const evictionSetIndex = "evictionSet"

// evictionResponder holds the Eviction cache and writes the answers.
type evictionResponder struct {
	client  kubernetes.Interface
	factory informers.SharedInformerFactory
	index   cache.Indexer
	now     func() time.Time
	// orphans are the Evictions, by namespace/name, of pods no extended
	// set owns, which the controller declines (declineOrphan).
	orphans workqueue.TypedRateLimitingInterface[string]
}

// watchEvictions makes the controller the eviction responder of its
// extended sets' pods: it caches Evictions (of namespace, "" for all) and
// wakes a set when one of its pods' Evictions changes.
func (c *Controller) watchEvictions(client kubernetes.Interface, namespace string) error {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	inf := factory.Lifecycle().V1alpha1().Evictions().Informer()
	if err := inf.AddIndexers(cache.Indexers{evictionSetIndex: indexEvictionBySet}); err != nil {
		return fmt.Errorf("adding the Eviction index: %w", err)
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.evictionChanged,
		UpdateFunc: func(_, cur any) { c.evictionChanged(cur) },
	}); err != nil {
		return fmt.Errorf("adding the Eviction handlers: %w", err)
	}
	c.responder = &evictionResponder{client: client, factory: factory, index: inf.GetIndexer(), now: time.Now,
		orphans: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "eviction-orphans"})}
	c.synced = append(c.synced, inf.HasSynced)
	if pc, ok := c.podControl.(*apiPodControl); ok {
		pc.responder = true
	}
	return nil
}

// indexEvictionBySet keys an Eviction of a pod by namespace and the set
// the pod's name belongs to.
func indexEvictionBySet(obj any) ([]string, error) {
	ev, ok := obj.(*lifecyclev1alpha1.Eviction)
	if !ok || ev.Spec.Target.Pod == nil {
		return nil, nil
	}
	parent, _, ok := planner.SplitPodName(ev.Spec.Target.Pod.Name)
	if !ok {
		return nil, nil
	}
	return []string{ev.Namespace + "/" + parent}, nil
}

// evictionChanged wakes the extended set whose pod an Eviction naming the
// controller targets; an Eviction of a pod no extended set owns (one
// migrated to apps/v1, whose pods keep the immutable field, or whose set
// is gone) goes to the declines (declineOrphan).
func (c *Controller) evictionChanged(obj any) {
	ev, ok := unwrap[*lifecyclev1alpha1.Eviction](obj)
	if !ok || ev.Spec.Target.Pod == nil || c.ext == nil || !namesResponder(ev) {
		return
	}
	if parent, _, ok := planner.SplitPodName(ev.Spec.Target.Pod.Name); ok {
		if set, err := c.ext.lister.Get(ev.Namespace, parent); err == nil && c.ownedByExtended(ev.Namespace, ev.Spec.Target.Pod.Name, set.UID) {
			c.enqueueExtended(set)
			return
		}
	}
	if _, active := osts.ActiveResponder(ev); active {
		c.responder.orphans.Add(ev.Namespace + "/" + ev.Name)
	}
}

// ownedByExtended reports whether the cached pod ns/name is controlled by
// the extended set with uid, or is not cached (gone, or not yet seen: its
// set's sync answers either way).
func (c *Controller) ownedByExtended(ns, name string, uid types.UID) bool {
	obj, ok, err := c.podIdx.GetByKey(ns + "/" + name)
	if err != nil || !ok {
		return true
	}
	r, ok := obj.(*podRecord)
	if !ok {
		return true
	}
	ref := r.controllerRef()
	return ref != nil && ref.UID == uid
}

// declineOrphan answers the Eviction ns/name of a pod no extended set
// owns: the controller completes at once, declining, so that the
// eviction passes to the next responder rather than wait out the API's
// heartbeat deadline.
func (r *evictionResponder) declineOrphan(ctx context.Context, key string) (time.Duration, error) {
	obj, ok, err := r.index.GetByKey(key)
	if err != nil || !ok {
		return 0, err
	}
	ev, ok := obj.(*lifecyclev1alpha1.Eviction)
	if !ok {
		return 0, nil
	}
	i, active := osts.ActiveResponder(ev)
	if !active {
		return 0, nil
	}
	msg := fmt.Sprintf("%s is not a pod of an extended StatefulSet the controller manages: it does not move it", ev.Spec.Target.Pod.Name)
	st, changed, _ := answer(ev.Status.Responders[i], planner.EvictionResponse{Outcome: planner.ResponseDeclined, Message: msg + "; it is left to the next responder"}, r.now())
	if !changed {
		return 0, nil
	}
	cp := ev.DeepCopy()
	cp.Status.Responders[i] = st
	_, err = r.client.LifecycleV1alpha1().Evictions(ev.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{FieldManager: v1alpha1.ControllerFieldManager})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return 0, nil // gone, or changed: its event brings it back
	}
	return 0, err
}

// namesResponder reports whether ev lists the controller among its
// responders.
func namesResponder(ev *lifecyclev1alpha1.Eviction) bool {
	return slices.ContainsFunc(ev.Status.TargetResponders, func(r lifecyclev1alpha1.TargetResponder) bool { return r.Name == osts.ResponderName })
}

// evictions are the Evictions of set's pods, from the cache.
func (r *evictionResponder) evictions(namespace, set string) []*lifecyclev1alpha1.Eviction {
	objs, err := r.index.ByIndex(evictionSetIndex, namespace+"/"+set)
	if err != nil {
		return nil
	}
	out := make([]*lifecyclev1alpha1.Eviction, 0, len(objs))
	for _, obj := range objs {
		if ev, ok := obj.(*lifecyclev1alpha1.Eviction); ok {
			out = append(out, ev)
		}
	}
	return out
}

// requests are the eviction requests of set's pods whose active responder
// the controller is, one per pod UID, for the planner.
func (r *evictionResponder) requests(namespace, set string) []planner.EvictionRequest {
	if r == nil {
		return nil
	}
	return osts.EvictionRequests(r.evictions(namespace, set))
}

// respond writes the plan's answers to the Evictions of set's pods whose
// active responder the controller is, and returns when the next heartbeat
// is due (0: none). A write that meets a newer Eviction is not an error:
// the Eviction's change wakes the set again.
func (r *evictionResponder) respond(ctx context.Context, namespace, set string, answers []planner.EvictionResponse) (time.Duration, error) {
	if r == nil || len(answers) == 0 {
		return 0, nil
	}
	var next time.Duration
	var errs []error
	for _, ev := range r.evictions(namespace, set) {
		i, ok := osts.ActiveResponder(ev)
		if !ok {
			continue
		}
		j := slices.IndexFunc(answers, func(a planner.EvictionResponse) bool {
			return a.Pod == ev.Spec.Target.Pod.Name && a.UID == ev.Spec.Target.Pod.UID
		})
		if j < 0 {
			continue
		}
		st, changed, due := answer(ev.Status.Responders[i], answers[j], r.now())
		next = soonest(next, due)
		if !changed {
			continue
		}
		cp := ev.DeepCopy()
		cp.Status.Responders[i] = st
		_, err := r.client.LifecycleV1alpha1().Evictions(namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{FieldManager: v1alpha1.ControllerFieldManager})
		if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("answering Eviction %s/%s of pod %s: %w", namespace, ev.Name, ev.Spec.Target.Pod.Name, err))
		}
	}
	return next, errors.Join(errs...)
}

// run declines orphans' Evictions until ctx ends.
func (r *evictionResponder) run(ctx context.Context) {
	workloop.Loop[string]{Queue: r.orphans, Sync: r.declineOrphan}.Run(ctx, 1)
}

// soonest is the earlier of two waits, 0 standing for none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

// withResponder is pod with the controller added to its
// spec.evictionResponders, unless it names it already, has the API's
// maximum of ten or belongs to a scheduling group (which may have none);
// pod itself is not changed.
func withResponder(pod *corev1.Pod) *corev1.Pod {
	ers := pod.Spec.EvictionResponders
	if len(ers) >= 10 || pod.Spec.SchedulingGroup != nil ||
		slices.ContainsFunc(ers, func(r corev1.EvictionResponder) bool { return r.Name == osts.ResponderName }) {
		return pod
	}
	out := *pod
	out.Spec.EvictionResponders = append(slices.Clone(ers), corev1.EvictionResponder{Name: osts.ResponderName, Priority: ptr.To(osts.ResponderPriority)})
	return &out
}
