package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// cacheLagRequeue is how soon a sync retries when the cache does not yet
// show one of our own writes; the informer event usually arrives first.
const cacheLagRequeue = 200 * time.Millisecond

// sync reconciles one set: observe, resolve revisions, plan, apply, write
// status, truncate history. It returns when to look again without an event.
// Status is written and history truncated even when applying failed, as
// upstream does, so users see the state the failure left behind. Both kinds
// of set take this path; an extended set's plan has extra inputs, its
// status has more fields (among them the failure policy's hold, whose
// event is recorded once the status is written), and it never asks for a
// write of the set's spec.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	t, err := c.targetOf(key)
	if apierrors.IsNotFound(err) {
		c.states.forget(key)
		c.calls.Forget(key)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if !c.cachesReady(t) {
		return cacheLagRequeue, nil
	}
	if t.kind == setkind.Extended {
		if planned, requeue, err := c.syncConfig(ctx, t); !planned {
			return requeue, err
		}
	}
	set := t.view
	if t.kind == setkind.Extended {
		c.calls.EnsureRoleProbe(ctx, key, t.extended)
	}
	logger := klog.FromContext(ctx).WithValues("statefulset", klog.KObj(set), "kind", t.kind.Group())
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil || selector.Empty() {
		c.warnOnce(key, set, planner.Warning{Reason: "InvalidSelector", Object: "StatefulSet/" + set.Name, Message: fmt.Sprintf("selector cannot be used: %v", err)})
		return 0, nil
	}
	if pod := c.exp.pending(key, c.cachedPod(set.Namespace)); pod != "" {
		logger.V(4).Info("Cache does not show our last write yet", "pod", pod)
		return cacheLagRequeue, nil
	}
	// Plan from the freshest status the controller knows: its own last
	// write when the cache lags, and a status change it is holding back.
	view := set
	if t.kind == setkind.AppsV1 {
		// An extended set's target is already the stored copy
		// (storedExtended).
		view = c.status.Stored(set)
	}
	stored := view.Status
	if held, ok := c.deferred.pending(key, view.Generation); ok {
		view = view.DeepCopy()
		applyStatus(&view.Status, held)
	}
	began, b := c.now(), newBuilder(c.states.lastBuilt(key))
	rc := c.revCacheOf(key)
	in, revs, err := c.observe(ctx, view, selector, t, b, rc)
	if err != nil {
		return 0, err
	}
	c.observeAround(ctx, t, &in)
	c.states.paced(key, began, len(in.Pods))
	c.evictions.prune(key, in.Pods)
	turn, groupWait := c.groupTurn(t, in)
	in.Observed.Group = turn
	if t.kind == setkind.Extended {
		in.Observed.EvictionRequests = c.responder.requests(set.Namespace, set.Name)
	}
	in.Apply = rc.apply
	plan := planner.Compute(in)
	rc.synced()
	c.states.keepBuilt(key, b, in, plan)
	announce := announceFirst(t, set, stored, &plan)
	budgetErr := c.reconcileBudget(ctx, t, in.Observed.Budgets, plan)
	applyErr := c.podControl.Apply(ctx, set, key, plan.Steps)
	cut := cutShort(applyErr)
	if cut {
		applyErr = nil
	}
	c.reportWarnings(key, set, plan.Warnings)
	requeue, set, statusErr := plan.RequeueAfter, t.view, error(nil)
	if !plan.KeepStatus {
		requeue, set, statusErr = c.writeStatus(ctx, t, stored, plan, applyErr != nil || cut)
	}
	if statusErr == nil {
		c.recordHold(t, plan)
	}
	truncErr := c.truncate(ctx, set, revs, in, plan.Status.UpdateRevision)
	heartbeat, answerErr := c.answerEvictions(ctx, set, plan)
	recordRollout(c.states, key, set, plan)
	if plan.Truncated || cut || c.evictions.takeFresh(key) {
		// The plan left ordinals for the next sync (planner.MaxCreates),
		// or its actions were cut short after their time budget (so that
		// this status is written), and the next sync waits for the cache
		// to show this one's creates; or an eviction was refused, which the
		// next plan waits on and lists in status.blockedBy.
		requeue = cacheLagRequeue
	}
	if groupWait > 0 && (requeue == 0 || requeue > groupWait) {
		requeue = groupWait // waiting for its rollout group's turn
	}
	requeue = soonest(configRequeue(t, requeue), heartbeat)
	if announce && (requeue == 0 || requeue > cacheLagRequeue) {
		requeue = cacheLagRequeue
	}
	return requeue, errors.Join(budgetErr, applyErr, statusErr, truncErr, answerErr)
}

// answerEvictions writes an extended set's answers to the Evictions of
// its pods (evictionresponder.go) and returns when the next heartbeat is
// due.
func (c *Controller) answerEvictions(ctx context.Context, set *appsv1.StatefulSet, plan planner.Plan) (time.Duration, error) {
	if plan.Extended == nil {
		return 0, nil
	}
	return c.responder.respond(ctx, set.Namespace, set.Name, plan.Extended.EvictionResponses)
}

// targetOf reads the set a key names from the cache; NotFound when it is
// gone (or the key names nothing). It is the one place a sync learns its
// set's kind.
func (c *Controller) targetOf(key string) (*target, error) {
	kind, ns, name, ok := setkind.ParseKey(key)
	switch {
	case !ok:
		return nil, apierrors.NewNotFound(appsv1.Resource("statefulsets"), key)
	case kind == setkind.AppsV1:
		set, err := c.sets.StatefulSets(ns).Get(name)
		if err != nil {
			return nil, err
		}
		return &target{key: key, kind: kind, view: set}, nil
	case kind == setkind.Extended:
		return c.extendedTarget(key, ns, name)
	}
	return nil, fmt.Errorf("key %q: the controller does not sync sets of kind %s", key, kind)
}

// writeStatus writes the plan's status, or holds a count-only change back
// (statusBound), and returns when to sync again for it and the set as
// stored. A change held because the client is busy is also looked at
// again once the client is quiet (quietWatch), if that comes first. A
// failed sync is retried on the queue's backoff, which soon outlasts any
// hold: its status, like upstream's, goes out at once (failed); so does
// that of a sync cut short after its time budget (synccut.go), which was
// cut so that its status would be written.
func (c *Controller) writeStatus(ctx context.Context, t *target, stored appsv1.StatefulSetStatus, plan planner.Plan, failed bool) (time.Duration, *appsv1.StatefulSet, error) {
	set, requeue, busy := t.view, plan.RequeueAfter, c.busy()
	bound := statusBound(busy, c.statusHold, stored, plan.Status, planner.Replicas(set), idle(plan))
	if failed || (t.kind == setkind.Extended && !extendedHoldable(t.extended.Status, c.extendedStatus(t, plan))) {
		bound = 0
	}
	if left, held := c.deferred.hold(t.key, stored, plan.Status, c.now(), bound); held {
		klog.FromContext(ctx).V(4).Info("Deferring a count-only status change", "statefulset", klog.KObj(set), "for", left)
		if busy {
			c.quiet.watch(t.key)
		}
		left = max(left, 50*time.Millisecond)
		if requeue == 0 || requeue > left {
			requeue = left
		}
		return requeue, set, nil
	}
	c.deferred.done(t.key)
	if t.kind == setkind.Extended {
		return requeue, set, c.writeExtendedStatus(ctx, t, plan)
	}
	written, err := c.status.Write(ctx, set, plan.Status)
	if err != nil {
		return requeue, set, err
	}
	return requeue, written, nil
}

// observe gathers the planner's input: owned revisions (resolved and, if
// needed, persisted), owned pods after adoption and release, and the claims
// the set's pods use. t.inputs is an extended set's spec, nil for
// apps/v1, t.observed what was observed around it, and t.revisions what
// its revisions hold. b makes the pods and
// claims from the cache's records.
func (c *Controller) observe(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector, t *target, b *builder, rc *revCache) (planner.Input, []*appsv1.ControllerRevision, error) {
	ext := t.inputs
	revs, err := c.ownedRevisions(ctx, set, selector)
	if err != nil {
		return planner.Input{}, nil, err
	}
	res, err := rc.resolve(set, revs, t.revisions, t.config.key())
	if err != nil {
		return planner.Input{}, nil, err
	}
	if t.kind != setkind.AppsV1 && res.Write == revision.WriteCreate {
		res.Update.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, t.kind.GroupVersionKind())}
		if err := annotateConfig(t, res.Update); err != nil {
			return planner.Input{}, nil, err
		}
	}
	if res, err = c.history.Persist(ctx, set, res); err != nil {
		return planner.Input{}, nil, err
	}
	// No pod of the update revision is made before the copies it reads.
	if err := c.ensureCopies(ctx, t, res.Update); err != nil {
		return planner.Input{}, nil, err
	}
	pods, err := c.ownedPods(ctx, set, selector, b)
	if err != nil {
		return planner.Input{}, nil, err
	}
	observed := t.observed
	if ext != nil {
		observed.Revisions = revs
	}
	return planner.Input{
		Set: set, Pods: pods, Claims: c.claimsFor(set, pods, ext, b),
		Current: res.Current, Update: res.Update, CollisionCount: res.CollisionCount, Now: c.now(),
		Extended: ext, Observed: observed, Release: c.release,
	}, revs, nil
}

func (c *Controller) ownedRevisions(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector) ([]*appsv1.ControllerRevision, error) {
	// Candidates are the set's own revisions and the namespace's orphans
	// its selector matches, the only ones claimRevisions may keep or adopt.
	var orphans []*appsv1.ControllerRevision
	for _, rev := range byIndex[*appsv1.ControllerRevision](c.revIdx, orphanRevisionIndex, set.Namespace) {
		if selector.Matches(labels.Set(rev.Labels)) {
			orphans = append(orphans, rev)
		}
	}
	candidates := unionByUID(orphans, byOwner[*appsv1.ControllerRevision](c.revIdx, set))
	return claimRevisions(ctx, c.client, c.fresh, set, selector, candidates)
}

func (c *Controller) ownedPods(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector, b *builder) ([]*corev1.Pod, error) {
	// Candidates are the set's own pods and the orphans named like them, the
	// only ones claimPods may keep or adopt; no namespace scan.
	records := unionByUID(byOwner[*podRecord](c.podIdx, set), byIndex[*podRecord](c.podIdx, orphanIndex, set.Namespace+"/"+set.Name))
	return claimPods(ctx, c.client, c.fresh, set, selector, b.pods(records))
}

// claimsFor reads the claims of the set's ordinals (past its reserved
// ones, for an extended set) and of every owned pod from the claim index
// by template, so the planner never needs to list a namespace, and what a
// sync reads follows the claims that exist, not spec.replicas.
func (c *Controller) claimsFor(set *appsv1.StatefulSet, pods []*corev1.Pod, ext *planner.Extended, b *builder) map[string]*corev1.PersistentVolumeClaim {
	templates := set.Spec.VolumeClaimTemplates
	if len(templates) == 0 {
		return map[string]*corev1.PersistentVolumeClaim{}
	}
	var reserved []planner.OrdinalRange
	if ext != nil {
		reserved = ext.Reserved
	}
	layout := planner.NewLayout(planner.StartOrdinal(set), planner.Replicas(set), reserved)
	found := make([][]*claimRecord, len(templates))
	total := 0
	for i := range templates {
		found[i] = byIndex[*claimRecord](c.claimIdx, claimPrefixIndex, set.Namespace+"/"+templates[i].Name+"-"+set.Name)
		total += len(found[i])
	}
	out := make(map[string]*corev1.PersistentVolumeClaim, total)
	podAt := podOrdinals{set: set.Name, pods: pods}
	for i, records := range found {
		for _, r := range records {
			// The index holds r under <template>-<set>: its name is
			// the claim of ordinal o when o is written as ClaimName
			// writes it.
			_, o, ok := planner.SplitPodName(r.Name())
			if _, in := layout.Index(o); ok && (in || podAt.has(o)) && planner.IsClaimName(r.Name(), templates[i].Name, set.Name, o) {
				out[r.Name()] = b.claim(r)
			}
		}
	}
	return out
}

// podOrdinals answers which ordinals the pods of a set hold, from a set
// of them made on the first question: claimsFor asks only about claims
// past the set's ordinals, which most syncs have none of.
type podOrdinals struct {
	set  string
	pods []*corev1.Pod
	at   map[int32]bool
}

func (p *podOrdinals) has(ord int32) bool {
	if p.at == nil {
		p.at = make(map[int32]bool, len(p.pods))
		for _, pod := range p.pods {
			if o, ok := planner.ParseOrdinal(p.set, pod.Name); ok {
				p.at[o] = true
			}
		}
	}
	return p.at[ord]
}

// truncate deletes revisions beyond the history limit; never a live one,
// nor target, the revision the plan rolls to (a hold's, while one runs
// another revision than the spec's).
func (c *Controller) truncate(ctx context.Context, set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, in planner.Input, target string) error {
	var errs []error
	live := []*appsv1.ControllerRevision{in.Current, in.Update}
	for _, rev := range revs {
		if rev.Name == target {
			live = append(live, rev)
		}
	}
	for _, rev := range revision.ToTruncate(set, revs, in.Pods, live...) {
		errs = append(errs, c.history.Delete(ctx, rev))
	}
	return errors.Join(errs...)
}

func (c *Controller) cachedPod(ns string) func(string) (*corev1.Pod, bool) {
	return func(name string) (*corev1.Pod, bool) {
		r, ok := podByName(c.podIdx, ns, name)
		if !ok {
			return nil, false
		}
		return r.pod(), true
	}
}

func byOwner[T any](idx cache.Indexer, set *appsv1.StatefulSet) []T {
	return byIndex[T](idx, ownerIndex, string(set.UID))
}

// byIndex returns the objects of type T under key in the named index.
func byIndex[T any](idx cache.Indexer, index, key string) []T {
	objs, err := idx.ByIndex(index, key)
	if err != nil {
		return nil
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// unionByUID is a and then those of b whose UID a does not have. Each list
// comes from one index, which lists an object once, and one of them is
// mostly empty (the orphans): then the other is the union, and a sync of
// a large set builds no set of its UIDs.
func unionByUID[T interface{ GetUID() types.UID }](a, b []T) []T {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]T, 0, len(a)+len(b))
	for _, list := range [][]T{a, b} {
		for _, o := range list {
			if uid := string(o.GetUID()); !seen[uid] {
				seen[uid] = true
				out = append(out, o)
			}
		}
	}
	return out
}
