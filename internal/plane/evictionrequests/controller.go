package evictionrequests

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/workloop"
)

// targetIndex indexes EvictionRequests and Evictions by their target
// pod: namespace/name.
const targetIndex = "targetPod"

// Evictor's retries of an eviction a budget refuses.
const (
	firstRetry = 5 * time.Second
	maxRetry   = 2 * time.Minute
)

// Controller turns EvictionRequests into Evictions and runs them (see the
// package comment). Its work queue holds targets: namespace/name/uid.
type Controller struct {
	client    kubernetes.Interface
	factory   informers.SharedInformerFactory
	requests  cache.Indexer
	evictions cache.Indexer
	pods      cache.Indexer
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
	now       func() time.Time
	mu        sync.Mutex
	// retries counts the refused evictions of each target, for the
	// evictor's backoff and message; gone is when each target's pod was
	// first seen gone.
	retries map[string]int
	gone    map[string]time.Time
}

// New builds the controller on client's informers; Run starts them.
func New(client kubernetes.Interface) (*Controller, error) {
	factory := informers.NewSharedInformerFactory(client, 0)
	reqInf := factory.Lifecycle().V1alpha1().EvictionRequests().Informer()
	evInf := factory.Lifecycle().V1alpha1().Evictions().Informer()
	podInf := factory.Core().V1().Pods().Informer()
	for _, inf := range []cache.SharedIndexInformer{reqInf, evInf} {
		if err := inf.AddIndexers(cache.Indexers{targetIndex: indexByTarget}); err != nil {
			return nil, fmt.Errorf("eviction request indexes: %w", err)
		}
	}
	c := &Controller{client: client, factory: factory, requests: reqInf.GetIndexer(), evictions: evInf.GetIndexer(), pods: podInf.GetIndexer(),
		synced: []cache.InformerSynced{reqInf.HasSynced, evInf.HasSynced, podInf.HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "evictionrequest"}),
		now: time.Now, retries: map[string]int{}, gone: map[string]time.Time{}}
	onTarget := cache.ResourceEventHandlerFuncs{AddFunc: c.enqueueTarget, UpdateFunc: func(_, o any) { c.enqueueTarget(o) }, DeleteFunc: c.enqueueTarget}
	for _, inf := range []cache.SharedIndexInformer{reqInf, evInf} {
		if _, err := inf.AddEventHandler(onTarget); err != nil {
			return nil, fmt.Errorf("eviction request handlers: %w", err)
		}
	}
	onPod := cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, o any) { c.podChanged(o) }, DeleteFunc: c.podChanged}
	if _, err := podInf.AddEventHandler(onPod); err != nil {
		return nil, fmt.Errorf("eviction request pod handlers: %w", err)
	}
	return c, nil
}

// Run works until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	c.factory.Start(ctx.Done())
	defer c.factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return nil
	}
	workloop.Loop[string]{Queue: c.queue, Sync: c.sync, Failed: func(ctx context.Context, key string, err error) {
		klog.FromContext(ctx).V(2).Info("Eviction request sync failed, requeuing", "target", key, "err", err)
	}}.Run(ctx, 2)
	return nil
}

// target names an eviction's pod; key is its queue key.
type target struct {
	namespace, name string
	uid             types.UID
}

func (t target) key() string { return t.namespace + "/" + t.name + "/" + string(t.uid) }

func parseTarget(key string) (target, bool) {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 {
		return target{}, false
	}
	return target{parts[0], parts[1], types.UID(parts[2])}, true
}

// targetOf is the pod an EvictionRequest or Eviction targets.
func targetOf(obj any) (target, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	switch o := obj.(type) {
	case *lifecyclev1alpha1.EvictionRequest:
		if p := o.Spec.Target.Pod; p != nil {
			return target{o.Namespace, p.Name, p.UID}, true
		}
	case *lifecyclev1alpha1.Eviction:
		if p := o.Spec.Target.Pod; p != nil {
			return target{o.Namespace, p.Name, p.UID}, true
		}
	}
	return target{}, false
}

func indexByTarget(obj any) ([]string, error) {
	if t, ok := targetOf(obj); ok {
		return []string{t.namespace + "/" + t.name}, nil
	}
	return nil, nil
}

func (c *Controller) enqueueTarget(obj any) {
	if t, ok := targetOf(obj); ok {
		c.queue.Add(t.key())
	}
}

// podChanged looks again at the evictions of a pod that changed or went.
func (c *Controller) podChanged(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	for _, idx := range []cache.Indexer{c.requests, c.evictions} {
		objs, _ := idx.ByIndex(targetIndex, pod.Namespace+"/"+pod.Name)
		for _, o := range objs {
			c.enqueueTarget(o)
		}
	}
}

// sync reconciles one target: its requests, its Eviction, the pod.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	t, ok := parseTarget(key)
	if !ok {
		return 0, nil
	}
	reqs, evs := c.requestsOf(t), c.evictionsOf(t)
	pod := c.pod(t)
	if len(evs) == 0 {
		return 0, c.register(ctx, t, reqs, pod)
	}
	// Read live: the cache may lag this controller's own last write, and
	// a write from a stale copy would be refused.
	ev, err := c.client.LifecycleV1alpha1().Evictions(t.namespace).Get(ctx, evs[0].Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading Eviction %s/%s: %w", t.namespace, evs[0].Name, err)
	}
	if !final(&ev.Status) {
		// The cache may not show yet that the pod is going: a responder
		// that completed would hand over to one that evicts it again.
		if pod, err = c.livePod(ctx, t); err != nil {
			return 0, err
		}
	}
	if err := c.adopt(ctx, ev, reqs); err != nil {
		return 0, err
	}
	wake, err := c.run(ctx, t, ev, reqs, pod)
	if err != nil {
		return 0, err
	}
	return wake, c.report(ctx, ev, reqs)
}

func (c *Controller) requestsOf(t target) []*lifecyclev1alpha1.EvictionRequest {
	objs, _ := c.requests.ByIndex(targetIndex, t.namespace+"/"+t.name)
	var out []*lifecyclev1alpha1.EvictionRequest
	for _, o := range objs {
		if r, ok := o.(*lifecyclev1alpha1.EvictionRequest); ok && r.Spec.Target.Pod.UID == t.uid && r.DeletionTimestamp == nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *lifecyclev1alpha1.EvictionRequest) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// evictionsOf are the target's Evictions, oldest first; the first is the
// one this controller runs.
func (c *Controller) evictionsOf(t target) []*lifecyclev1alpha1.Eviction {
	objs, _ := c.evictions.ByIndex(targetIndex, t.namespace+"/"+t.name)
	var out []*lifecyclev1alpha1.Eviction
	for _, o := range objs {
		if e, ok := o.(*lifecyclev1alpha1.Eviction); ok && e.Spec.Target.Pod.UID == t.uid {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *lifecyclev1alpha1.Eviction) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	return out
}

// pod is the target pod, nil when no pod of its name has its UID.
func (c *Controller) pod(t target) *corev1.Pod {
	obj, ok, _ := c.pods.GetByKey(t.namespace + "/" + t.name)
	if !ok {
		return nil
	}
	if p, ok := obj.(*corev1.Pod); ok && p.UID == t.uid {
		return p
	}
	return nil
}

// livePod reads the target pod from the API server; nil when no pod of
// its name has its UID.
func (c *Controller) livePod(ctx context.Context, t target) (*corev1.Pod, error) {
	p, err := c.client.CoreV1().Pods(t.namespace).Get(ctx, t.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading pod %s/%s: %w", t.namespace, t.name, err)
	case p.UID != t.uid:
		return nil, nil
	}
	return p, nil
}

// asking are the requests that still ask for the eviction.
func asking(reqs []*lifecyclev1alpha1.EvictionRequest) []*lifecyclev1alpha1.EvictionRequest {
	return slices.DeleteFunc(slices.Clone(reqs), func(r *lifecyclev1alpha1.EvictionRequest) bool {
		return r.Spec.Intent != lifecyclev1alpha1.EvictionRequestIntentEviction
	})
}

// register creates the Eviction of a target some request asks for, or
// fails the requests of a target that cannot be evicted.
func (c *Controller) register(ctx context.Context, t target, reqs []*lifecyclev1alpha1.EvictionRequest, pod *corev1.Pod) error {
	if len(asking(reqs)) == 0 {
		return nil
	}
	if why := invalid(t, pod); why != "" {
		return c.failRequests(ctx, reqs, why)
	}
	ev := &lifecyclev1alpha1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: evictionName(t), Namespace: t.namespace},
		Spec:       lifecyclev1alpha1.EvictionSpec{Target: lifecyclev1alpha1.EvictionTarget{Pod: &lifecyclev1alpha1.EvictionPodReference{Name: t.name, UID: t.uid}}},
	}
	setOwnersAndLabels(ev, reqs, pod)
	created, err := c.client.LifecycleV1alpha1().Evictions(t.namespace).Create(ctx, ev, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // the cache shows it soon, and its event brings the target back
	}
	if err != nil {
		return fmt.Errorf("creating the Eviction of pod %s/%s: %w", t.namespace, t.name, err)
	}
	created.Status = initialStatus(pod, created.Generation, c.now())
	created.Status.Requesters = requesterList(reqs)
	if _, err := c.client.LifecycleV1alpha1().Evictions(t.namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("starting the Eviction of pod %s/%s: %w", t.namespace, t.name, err)
	}
	return nil
}

// invalid says why the target cannot be evicted, or "".
func invalid(t target, pod *corev1.Pod) string {
	switch {
	case pod == nil:
		return fmt.Sprintf("Target Pod %s (uid %s) was not found.", t.name, t.uid)
	case pod.Spec.SchedulingGroup != nil:
		return fmt.Sprintf("Target Pod %s is part of a Workload/PodGroup. Eviction of such pods is currently not supported.", t.name)
	}
	return ""
}

// evictionName is the Eviction's name: pod-<uid's first part>-<pod>,
// within a name's 253 characters.
func evictionName(t target) string {
	uid, _, _ := strings.Cut(string(t.uid), "-")
	name := "pod-" + uid + "-" + t.name
	if len(name) > 253 {
		name = name[:253]
	}
	return name
}

// setOwnersAndLabels makes ev owned by every request of its target and
// labelled with each requester's and responder's name, and reports
// whether that changed it.
func setOwnersAndLabels(ev *lifecyclev1alpha1.Eviction, reqs []*lifecyclev1alpha1.EvictionRequest, pod *corev1.Pod) bool {
	var refs []metav1.OwnerReference
	labels := map[string]string{}
	for _, r := range reqs {
		refs = append(refs, metav1.OwnerReference{APIVersion: lifecyclev1alpha1.SchemeGroupVersion.String(), Kind: "EvictionRequest", Name: r.Name, UID: r.UID})
		labels[r.Spec.Requester] = string(lifecyclev1alpha1.EvictionParticipantRoleRequester)
	}
	responders := []string{Evictor}
	if pod != nil {
		for _, r := range pod.Spec.EvictionResponders {
			responders = append(responders, r.Name)
		}
	}
	for _, r := range ev.Status.TargetResponders {
		responders = append(responders, r.Name)
	}
	for _, name := range responders {
		role := lifecyclev1alpha1.EvictionParticipantRoleResponder
		if labels[name] == string(lifecyclev1alpha1.EvictionParticipantRoleRequester) {
			role = lifecyclev1alpha1.EvictionParticipantRoleRequesterResponder
		}
		labels[name] = string(role)
	}
	changed := false
	for _, ref := range refs {
		if !slices.ContainsFunc(ev.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == ref.UID }) {
			ev.OwnerReferences, changed = append(ev.OwnerReferences, ref), true
		}
	}
	for k, v := range labels {
		if ev.Labels[k] != v {
			if ev.Labels == nil {
				ev.Labels = map[string]string{}
			}
			ev.Labels[k], changed = v, true
		}
	}
	return changed
}

// adopt gives ev the owners and labels of requests that came after it.
func (c *Controller) adopt(ctx context.Context, ev *lifecyclev1alpha1.Eviction, reqs []*lifecyclev1alpha1.EvictionRequest) error {
	if len(reqs) == 0 || !setOwnersAndLabels(ev, reqs, nil) {
		return nil
	}
	updated, err := c.client.LifecycleV1alpha1().Evictions(ev.Namespace).Update(ctx, ev, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("owning Eviction %s/%s by its requests: %w", ev.Namespace, ev.Name, err)
	}
	*ev = *updated
	return nil
}

// run advances ev (state.go), evicts the pod when the imperative
// evictor's turn has come, and writes ev's status if it changed; it
// returns when to look again.
func (c *Controller) run(ctx context.Context, t target, ev *lifecyclev1alpha1.Eviction, reqs []*lifecyclev1alpha1.EvictionRequest, pod *corev1.Pod) (time.Duration, error) {
	before := ev.Status.DeepCopy()
	if len(ev.Status.TargetResponders) == 0 && pod != nil {
		ev.Status = initialStatus(pod, ev.Generation, c.now())
	}
	ev.Status.Requesters = requesterList(reqs)
	f := facts{Gone: pod == nil, GoneFor: c.goneFor(t, pod == nil), Asking: len(asking(reqs)) > 0, Now: c.now()}
	if pod != nil {
		f.Phase, f.Terminating = pod.Status.Phase, pod.DeletionTimestamp != nil
	}
	out := advance(&ev.Status, f)
	wake := out.Wake
	if out.Evict {
		wake = c.evict(ctx, t, ev)
	}
	if final(&ev.Status) {
		c.forget(t)
	}
	if equalStatus(before, &ev.Status) {
		return wake, nil
	}
	updated, err := c.client.LifecycleV1alpha1().Evictions(ev.Namespace).UpdateStatus(ctx, ev, metav1.UpdateOptions{})
	if err != nil {
		return 0, fmt.Errorf("writing the status of Eviction %s/%s: %w", ev.Namespace, ev.Name, err)
	}
	*ev = *updated
	return wake, nil
}

// evict is the imperative evictor's call of the pod's eviction
// subresource, with the pod's UID as a precondition; a refusal is
// recorded in its responder status and asked again after a backoff,
// which it returns.
func (c *Controller) evict(ctx context.Context, t target, ev *lifecyclev1alpha1.Eviction) time.Duration {
	req := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: t.name, Namespace: t.namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &t.uid}}}
	err := c.client.PolicyV1().Evictions(t.namespace).Evict(ctx, req)
	switch {
	case err == nil, apierrors.IsNotFound(err), apierrors.IsConflict(err):
		evicted(&ev.Status, c.now(), "evicted the pod through its eviction subresource")
		return 0
	}
	n := c.refusedOnce(t)
	refused(&ev.Status, err, n, c.now())
	return backoff(n)
}

// backoff is the wait before the evictor's n-th retry.
func backoff(n int) time.Duration {
	d := firstRetry
	for i := 1; i < n && d < maxRetry; i++ {
		d *= 2
	}
	return min(d, maxRetry)
}

func (c *Controller) refusedOnce(t target) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.retries[t.key()]++
	return c.retries[t.key()]
}

func (c *Controller) forget(t target) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.retries, t.key())
	delete(c.gone, t.key())
}

// goneFor is how long the target's pod has been seen gone; 0 when it is
// there.
func (c *Controller) goneFor(t target, gone bool) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !gone {
		delete(c.gone, t.key())
		return 0
	}
	since, ok := c.gone[t.key()]
	if !ok {
		since = c.now()
		c.gone[t.key()] = since
	}
	return c.now().Sub(since)
}

// requesterList is the Eviction's status.requesters: every request's
// requester and intent, a requester that asks in one request asking.
func requesterList(reqs []*lifecyclev1alpha1.EvictionRequest) []lifecyclev1alpha1.Requester {
	var out []lifecyclev1alpha1.Requester
	for _, r := range reqs {
		intent := lifecyclev1alpha1.RequesterIntent(r.Spec.Intent)
		i := slices.IndexFunc(out, func(q lifecyclev1alpha1.Requester) bool { return q.Name == r.Spec.Requester })
		switch {
		case i < 0:
			out = append(out, lifecyclev1alpha1.Requester{Name: r.Spec.Requester, Intent: intent})
		case intent == lifecyclev1alpha1.RequesterIntentEviction:
			out[i].Intent = intent
		}
	}
	return out
}

// report copies ev's final conditions to its requests.
func (c *Controller) report(ctx context.Context, ev *lifecyclev1alpha1.Eviction, reqs []*lifecyclev1alpha1.EvictionRequest) error {
	var errs []error
	for _, r := range reqs {
		conds := requestConditions(r.Status.Conditions, &ev.Status)
		if equalConditions(conds, r.Status.Conditions) {
			continue
		}
		cp := r.DeepCopy()
		cp.Status.Conditions, cp.Status.ObservedGeneration = conds, &cp.Generation
		if _, err := c.client.LifecycleV1alpha1().EvictionRequests(r.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("reporting to EvictionRequest %s/%s: %w", r.Namespace, r.Name, err))
		}
	}
	return errors.Join(errs...)
}

// failRequests fails the requests of a target that cannot be evicted.
func (c *Controller) failRequests(ctx context.Context, reqs []*lifecyclev1alpha1.EvictionRequest, why string) error {
	st := &lifecyclev1alpha1.EvictionStatus{}
	setCondition(st, lifecyclev1alpha1.EvictionConditionFailed, lifecyclev1alpha1.EvictionConditionReasonEvictionInvalid, why, metav1.NewTime(c.now().Truncate(time.Second)))
	return c.report(ctx, &lifecyclev1alpha1.Eviction{Status: *st}, reqs)
}
