package invariant

import (
	"context"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// Clients are what a Watcher reads through.
type Clients struct {
	// Kube reads pods, claims, ControllerRevisions and apps/v1 sets.
	Kube kubernetes.Interface
	// Extended reads the extended sets (apps.ordinal.dev); nil leaves them
	// unwatched, as on a cluster without the kind.
	Extended *ostsclient.Client
}

// Watcher feeds a Checker from the API server: one list+watch per kind
// (pods, claims, revisions, StatefulSets of both kinds) in one namespace,
// and of the cluster's nodes. Each watch
// resumes from its last resourceVersion (bookmarks on) when it closes, so
// no version is missed; when the version has expired (410 Gone) it lists
// again and turns the difference into Relisted events.
type Watcher struct {
	*Checker
	client  kubernetes.Interface
	ns      string
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	synced  sync.WaitGroup
	mu      sync.Mutex
	relists int
}

type source struct {
	kind  Kind
	list  func(context.Context, metav1.ListOptions) (runtime.Object, error)
	watch func(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// Watch starts watching namespace ns until ctx ends or Stop is called.
// Use WaitSynced before acting, so the initial state is recorded.
func Watch(ctx context.Context, clients Clients, ns string, opts Options) *Watcher {
	ctx, cancel := context.WithCancel(ctx)
	client := clients.Kube
	w := &Watcher{Checker: New(opts), client: client, ns: ns, cancel: cancel}
	pods, claims := client.CoreV1().Pods(ns), client.CoreV1().PersistentVolumeClaims(ns)
	revs, sets := client.AppsV1().ControllerRevisions(ns), client.AppsV1().StatefulSets(ns)
	budgets, cms := client.PolicyV1().PodDisruptionBudgets(ns), client.CoreV1().ConfigMaps(ns)
	sources := []source{
		{KindBudget, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return budgets.List(c, o) }, budgets.Watch},
		{KindSet, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return sets.List(c, o) }, sets.Watch},
		{KindPod, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return pods.List(c, o) }, pods.Watch},
		{KindClaim, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return claims.List(c, o) }, claims.Watch},
		{KindRevision, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return revs.List(c, o) }, revs.Watch},
		{KindConfigMap, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return cms.List(c, o) }, cms.Watch},
	}
	if opts.Nodes {
		nodes, volumes := client.CoreV1().Nodes(), client.CoreV1().PersistentVolumes()
		sources = append(sources,
			source{KindNode, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return nodes.List(c, o) }, nodes.Watch},
			source{KindVolume, func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return volumes.List(c, o) }, volumes.Watch})
	}
	// Nodes are cluster-wide: their labels give pods their topology
	// domain. A client not allowed to list them leaves the domain rules
	// without a verdict (a pod on an unseen node is not judged). With
	// Options.Nodes the whole nodes above carry the labels too.
	if !opts.Nodes {
		sources = append(sources, nodeSource(client))
	}
	if opts.Evictions {
		evs := client.LifecycleV1alpha1().Evictions(ns)
		sources = append(sources, source{KindEviction,
			func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return evs.List(c, o) }, evs.Watch})
	}
	if clients.Extended != nil {
		ext := clients.Extended.StatefulSets(ns)
		sources = append(sources, source{KindExtendedSet,
			func(c context.Context, o metav1.ListOptions) (runtime.Object, error) { return ext.List(c, o) }, ext.Watch})
	}
	for _, src := range sources {
		w.wg.Add(1)
		w.synced.Add(1)
		go w.run(ctx, src)
	}
	return w
}

// WaitSynced blocks until every kind has been listed once.
func (w *Watcher) WaitSynced() { w.synced.Wait() }

// Stop ends the watches and waits for them.
func (w *Watcher) Stop() {
	w.cancel()
	w.wg.Wait()
}

// Relists returns how many times a watch had to list again (410 Gone).
func (w *Watcher) Relists() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.relists
}

// Assert fails t with every violation found so far.
func (w *Watcher) Assert(t testing.TB) {
	t.Helper()
	for _, v := range w.Violations() {
		t.Errorf("invariant violated: %s", v)
	}
}

// run lists and watches one kind, resuming and relisting as needed.
func (w *Watcher) run(ctx context.Context, src source) {
	defer w.wg.Done()
	known := map[types.UID]runtime.Object{}
	var rv string
	first := true
	for ctx.Err() == nil {
		if rv == "" {
			var err error
			if rv, err = w.relist(ctx, src, known); err != nil {
				sleep(ctx, 200*time.Millisecond)
				continue
			}
			if first {
				first = false
				w.synced.Done()
			}
		}
		var expired bool
		rv, expired = w.follow(ctx, src, known, rv)
		if expired {
			w.mu.Lock()
			w.relists++
			w.mu.Unlock()
			rv = ""
		}
	}
	if first {
		w.synced.Done()
	}
}

// follow watches from rv until the watch ends; it returns the last
// resourceVersion seen and whether it expired.
func (w *Watcher) follow(ctx context.Context, src source, known map[types.UID]runtime.Object, rv string) (string, bool) {
	wi, err := src.watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
			return rv, true
		}
		sleep(ctx, 200*time.Millisecond)
		return rv, false
	}
	defer wi.Stop()
	for {
		select {
		case <-ctx.Done():
			return rv, false
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return rv, false
			}
			switch ev.Type {
			case watch.Error:
				err := apierrors.FromObject(ev.Object)
				return rv, apierrors.IsGone(err) || apierrors.IsResourceExpired(err)
			case watch.Bookmark:
				if m, err := meta.Accessor(ev.Object); err == nil {
					rv = m.GetResourceVersion()
				}
				continue
			}
			m, err := meta.Accessor(ev.Object)
			if err != nil {
				continue
			}
			rv = m.GetResourceVersion()
			if ev.Type == watch.Deleted {
				delete(known, m.GetUID())
			} else {
				known[m.GetUID()] = ev.Object
			}
			w.Observe(Event{Kind: src.kind, Type: ev.Type, Object: ev.Object, RV: ParseRV(rv), Time: time.Now()})
		}
	}
}

// relist lists the kind and records the difference from what was known as
// Relisted events: new objects ADDED, changed ones MODIFIED (at their own
// resourceVersion), vanished ones DELETED at their last known version (the
// earliest the delete can have happened).
func (w *Watcher) relist(ctx context.Context, src source, known map[types.UID]runtime.Object) (string, error) {
	list, err := src.list(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return "", err
	}
	now := time.Now()
	seen := map[types.UID]bool{}
	for _, obj := range items {
		m, err := meta.Accessor(obj)
		if err != nil {
			continue
		}
		seen[m.GetUID()] = true
		old, ok := known[m.GetUID()]
		typ := watch.Added
		if ok {
			if om, _ := meta.Accessor(old); om != nil && om.GetResourceVersion() == m.GetResourceVersion() {
				continue
			}
			typ = watch.Modified
		}
		known[m.GetUID()] = obj
		w.Observe(Event{Kind: src.kind, Type: typ, Object: obj, RV: ParseRV(m.GetResourceVersion()), Time: now, Relisted: true})
	}
	for uid, obj := range known {
		if seen[uid] {
			continue
		}
		delete(known, uid)
		m, _ := meta.Accessor(obj)
		w.Observe(Event{Kind: src.kind, Type: watch.Deleted, Object: obj, RV: ParseRV(m.GetResourceVersion()), Time: now, Relisted: true})
	}
	return lm.GetResourceVersion(), nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
