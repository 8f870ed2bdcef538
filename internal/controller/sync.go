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

// sync reconciles one set, in the order of upstream's UpdateStatefulSet
// and performUpdate:
//
//  1. read the set from the cache (targetOf); forget it when it is gone;
//  2. make sure it may be planned (ready): caches synced, the kind's
//     preparation done, a usable selector, the cache showing our writes;
//  3. list its revisions and get the current and update ones, then its
//     pods and claims (observe);
//  4. update the set: plan, then apply the plan (updateSet);
//  5. update its status (updateStatus);
//  6. truncate its history (truncate);
//  7. say when to look again without an event (nextSync).
//
// Status is written and history truncated even when applying failed, as
// upstream does, so users see the state the failure left behind. Both
// kinds of set take this path; each step that differs by kind goes
// through the target's door (door.go).
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	t, err := c.targetOf(key)
	if apierrors.IsNotFound(err) {
		c.memories.forget(key)
		c.calls.Forget(key)
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	selector, requeue, ok, err := c.ready(ctx, t)
	if !ok {
		return requeue, err
	}
	return c.performUpdate(ctx, t, selector)
}

// ready reports whether t may be planned now, with its selector; when it
// may not, the sync ends with requeue and err.
func (c *Controller) ready(ctx context.Context, t *target) (labels.Selector, time.Duration, bool, error) {
	if !t.door.cachesReady(c, t) {
		return nil, cacheLagRequeue, false, nil
	}
	if planned, requeue, err := t.door.prepare(ctx, c, t); !planned {
		return nil, requeue, false, err
	}
	set := t.view
	logger := klog.FromContext(ctx).WithValues("statefulset", klog.KObj(set), "kind", t.kind().Group())
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil || selector.Empty() {
		c.warnOnce(t.key, set, planner.Warning{Reason: "InvalidSelector", Object: "StatefulSet/" + set.Name, Message: fmt.Sprintf("selector cannot be used: %v", err)})
		return nil, 0, false, nil
	}
	if pod := c.exp.pending(t.key, c.cachedPod(set.Namespace)); pod != "" {
		logger.V(4).Info("Cache does not show our last write yet", "pod", pod)
		return nil, cacheLagRequeue, false, nil
	}
	return selector, 0, true, nil
}

// performUpdate observes, plans and applies, writes status and truncates
// history (sync's steps 3 to 7), as upstream's performUpdate does.
func (c *Controller) performUpdate(ctx context.Context, t *target, selector labels.Selector) (time.Duration, error) {
	view, stored := c.planView(t)
	began, b := c.now(), newBuilder(c.lastBuilt(t.key))
	rc := c.revCacheOf(t.key)
	in, revs, err := c.observe(ctx, view, selector, t, b, rc)
	if err != nil {
		return 0, err
	}
	u := c.updateSet(ctx, t, &in, stored, rc, b, began, revs)
	requeue, set, statusErr := c.updateStatus(ctx, t, stored, u.plan, u.applyErr != nil || u.cut)
	truncErr := c.truncate(ctx, set, revs, in, u.plan.Status.UpdateRevision)
	heartbeat, answerErr := t.door.answerEvictions(ctx, c, set, u.plan)
	recordRollout(c.gauges, t.key, set, u.plan)
	requeue = c.nextSync(t, u, requeue, heartbeat)
	return requeue, errors.Join(u.budgetErr, u.applyErr, statusErr, truncErr, answerErr)
}

// planView is the set to plan from, with the freshest status the
// controller knows: its own last write when the cache lags, and a status
// change it is holding back; and the status as stored, which the plan's
// is compared with.
func (c *Controller) planView(t *target) (*appsv1.StatefulSet, appsv1.StatefulSetStatus) {
	view := t.door.stored(c, t)
	stored := view.Status
	if held, ok := c.deferred.pending(t.key, view.Generation); ok {
		view = view.DeepCopy()
		applyStatus(&view.Status, held)
	}
	return view, stored
}

// update is what updating a set did: the plan, how soon its rollout
// group's turn is looked at again, whether the plan was held back to
// announce its revision first (announceFirst), and what applying it
// found: cut says its actions were cut short after their time budget
// (synccut.go).
type update struct {
	plan                planner.Plan
	groupWait           time.Duration
	announce, cut       bool
	budgetErr, applyErr error
}

// updateSet plans the set from in and applies the plan (upstream's
// updateStatefulSet): the budget the set keeps first, then the pods and
// claims, then the plan's warnings.
func (c *Controller) updateSet(ctx context.Context, t *target, in *planner.Input, stored appsv1.StatefulSetStatus, rc *revCache, b *builder, began time.Time, revs []*appsv1.ControllerRevision) update {
	key, set := t.key, t.view
	t.door.observeAround(ctx, c, t, in, revs)
	c.paces.paced(key, began, len(in.Pods))
	c.evictions.prune(key, in.Pods)
	var u update
	in.Observed.Group, u.groupWait = t.door.groupTurn(c, t, *in)
	in.Apply = rc.apply
	in.CreateLimit = c.createLimit
	u.plan = planner.Compute(*in)
	rc.synced()
	c.keepBuilt(key, b, *in, u.plan)
	u.announce = announceFirst(t, set, stored, &u.plan)
	u.budgetErr = t.door.reconcileBudget(ctx, c, t, in.Observed.Budgets, u.plan)
	u.applyErr = c.podControl.Apply(ctx, set, key, u.plan.Steps)
	if u.cut = cutShort(u.applyErr); u.cut {
		u.applyErr = nil
	}
	c.reportWarnings(key, set, u.plan.Warnings)
	return u
}

// updateStatus writes the plan's status (writeStatus), unless the plan
// keeps the status as it is, and then, unless the write failed, does
// what the kind does then (a hold's event).
func (c *Controller) updateStatus(ctx context.Context, t *target, stored appsv1.StatefulSetStatus, plan planner.Plan, failed bool) (time.Duration, *appsv1.StatefulSet, error) {
	requeue, set, err := plan.RequeueAfter, t.view, error(nil)
	if !plan.KeepStatus {
		requeue, set, err = c.writeStatus(ctx, t, stored, plan, failed)
	}
	if err == nil {
		t.door.statusWritten(c, t, plan)
	}
	return requeue, set, err
}

// nextSync is when to sync the set again without an event, given the
// plan's and the status's requeue and the next eviction heartbeat.
func (c *Controller) nextSync(t *target, u update, requeue, heartbeat time.Duration) time.Duration {
	if u.plan.Truncated || u.cut || c.evictions.takeFresh(t.key) {
		// The plan left ordinals for the next sync (planner.MaxCreates),
		// or its actions were cut short after their time budget (so that
		// this status is written), and the next sync waits for the cache
		// to show this one's creates; or an eviction was refused, which the
		// next plan waits on and lists in status.blockedBy.
		requeue = cacheLagRequeue
	}
	if u.groupWait > 0 && (requeue == 0 || requeue > u.groupWait) {
		requeue = u.groupWait // waiting for its rollout group's turn
	}
	requeue = soonest(t.door.requeue(t, requeue), heartbeat)
	if u.announce && (requeue == 0 || requeue > cacheLagRequeue) {
		requeue = cacheLagRequeue
	}
	return requeue
}

// targetOf reads the set a key names from the cache, through its kind's
// door; NotFound when it is gone (or the key names nothing). It is the
// one place a sync learns its set's kind.
func (c *Controller) targetOf(key string) (*target, error) {
	kind, ns, name, ok := setkind.ParseKey(key)
	if !ok {
		return nil, apierrors.NewNotFound(appsv1.Resource("statefulsets"), key)
	}
	d, ok := doors[kind]
	if !ok {
		return nil, fmt.Errorf("key %q: the controller does not sync sets of kind %s", key, kind)
	}
	return d.target(c, key, ns, name)
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
	if failed || !t.door.holdable(c, t, plan) {
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
	written, err := t.door.writeStatus(ctx, c, t, plan)
	return requeue, written, err
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
	if res.Write == revision.WriteCreate {
		if err := t.door.revisionCreated(t, res.Update); err != nil {
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
	return planner.Input{
		Set: set, Pods: pods, Claims: c.claimsFor(set, pods, ext, b),
		Current: res.Current, Update: res.Update, CollisionCount: res.CollisionCount, Now: c.now(),
		Extended: ext, Observed: t.observed, Release: c.release,
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
