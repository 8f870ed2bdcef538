package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/podcall"
	"github.com/ordinal-sh/ordinal/internal/workloop"
)

// ownerIndex indexes pods and revisions by their controller's UID, so a
// sync finds owned objects that no longer match the selector.
const ownerIndex = "controllerUID"

// orphanIndex indexes pods without a controller by the set their name
// belongs to (<set>-<ordinal>): the only orphans a set may adopt. With the
// owner index, a sync reads its own pods without scanning the namespace.
const orphanIndex = "orphanOf"

// orphanRevisionIndex indexes revisions without a controller by their
// namespace: the only ones a set may adopt, so a sync never scans the
// namespace's revisions (a thousand sets have thousands).
const orphanRevisionIndex = "orphanRevisionIn"

// claimPrefixIndex indexes claims by namespace and their name without
// its ordinal: <template>-<set> of <template>-<set>-<ordinal>. A sync
// reads the claims of its set's templates from it, so what it reads
// follows the claims that exist, never spec.replicas.
const claimPrefixIndex = "claimPrefix"

// Controller reconciles apps/v1 StatefulSets and, when the cluster serves
// it, the extended kind (apps.ordinal.dev/v1alpha1).
type Controller struct {
	client   kubernetes.Interface
	sets     appslisters.StatefulSetLister
	claimIdx cache.Indexer
	revs     appslisters.ControllerRevisionLister
	podIdx   cache.Indexer
	revIdx   cache.Indexer
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder record.EventRecorder
	events   record.EventBroadcaster

	podControl PodControl
	history    History
	status     StatusWriter
	busy       func() bool
	statusHold time.Duration
	// memories lists every per-set memory below, each a mechanism's own
	// under its own lock (memory.go); deleting a set forgets it in all
	// of them in one call.
	memories *memories
	deferred statusDeferrals
	quiet    *quietWatch
	exp      *expectations
	// warnings are the warnings last reported (warnings.go), extStored
	// the extended sets as their last status writes returned them
	// (extended.go), gauges the rollout gauges (metrics.go), paces the
	// sync buckets (pacing.go), builts what the last syncs made from the
	// cache's records (built.go), revCaches what the revisions cost to
	// work out (revcache.go) and configs what was read of the objects
	// the revisions hold (configrev.go); the apps/v1 sets' last status
	// writes are the status writer's (status.go).
	warnings  *perSet[warned]
	extStored *perSet[*v1alpha1.StatefulSet]
	gauges    *perSet[rolloutGauges]
	paces     paces
	builts    *perSet[*built]
	revCaches *perSet[revCache]
	configs   *perSet[configState]
	// evictions are the refused evictions the planner waits on.
	evictions evictions
	// groups are the rollout groups' turns.
	groups rolloutGroups
	now    func() time.Time
	// ext is the extended kind, or nil when the controller runs without it.
	ext *extendedSets
	// skipAppsV1 leaves apps/v1 sets alone (Options.SkipAppsV1).
	skipAppsV1 bool
	// createLimit bounds the missing pods a plan builds (Options.CreateLimit).
	createLimit int
	// release is the upstream release apps/v1 sets follow (Options.Release).
	release planner.Release
	// classes lists StorageClasses; nil unless the extended kind is
	// managed.
	classes storagelisters.StorageClassLister
	// nodeFacts reads nodes and volumes for the node-failure pass and the
	// topology of rollouts; nil unless the extended kind is managed
	// (nodefailure.go, nodes.go). nodeWatch starts their caches when an
	// extended set first needs them (nodewatch.go).
	nodeFacts *nodeFacts
	nodeWatch *nodeWatch
	// configMaps reads ConfigMaps' metadata for sets whose revisions hold
	// their data, and configWatch starts its cache when such a set first
	// needs it; configUsers wakes those sets when one changes
	// (configwatch.go, configrev.go). Nil unless the extended kind is
	// managed.
	configMaps  corelisters.ConfigMapLister
	configWatch *nodeWatch
	configUsers configUsers
	// calls makes every call to pods: the http lifecycle hooks the pod
	// control starts and the extended kind's role probe
	// (internal/podcall). Deleting a set forgets its calls with its
	// state.
	calls podcall.Caller
	// budgets lists PodDisruptionBudgets, whose cache budgetWatch starts
	// at the first extended set's sync (budgetwatch.go, budget.go); nil
	// unless the extended kind is managed.
	budgets     policylisters.PodDisruptionBudgetLister
	budgetWatch *nodeWatch
	// responder answers the Evictions of extended sets' pods
	// (evictionresponder.go); nil unless the extended kind is managed and
	// the API server serves the EvictionRequest API.
	responder *evictionResponder
}

// NewInformerFactory returns the informer factory the controller expects:
// objects are trimmed (managed fields, unused pod fields) before they are
// cached. namespace "" watches every namespace.
func NewInformerFactory(client kubernetes.Interface, namespace string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTransform(stripForCache), informers.WithNamespace(namespace))
}

// New wires the controller to the factory's informers. Start the factory
// after New and before Run. opts.Busy (may be nil) reports that the
// client's requests queue for rate-limiter tokens: count-only status
// changes (for up to opts.StatusHold) and events then wait, so pod and
// claim writes go first. opts.Metrics (may be nil) receives the per-set
// rollout gauges.
func New(client kubernetes.Interface, factory informers.SharedInformerFactory, opts Options) (*Controller, error) {
	busy := opts.Busy
	if busy == nil {
		busy = func() bool { return false }
	}
	setInf, sets := appsV1Sets(factory, opts.SkipAppsV1)
	podInf := factory.Core().V1().Pods()
	claimInf := factory.Core().V1().PersistentVolumeClaims()
	revInf := factory.Apps().V1().ControllerRevisions()
	if err := podInf.Informer().AddIndexers(cache.Indexers{ownerIndex: indexByOwner, orphanIndex: indexOrphanByParent}); err != nil {
		return nil, fmt.Errorf("adding pod indexes: %w", err)
	}
	if err := revInf.Informer().AddIndexers(cache.Indexers{ownerIndex: indexByOwner, orphanRevisionIndex: indexOrphanRevision}); err != nil {
		return nil, fmt.Errorf("adding revision index: %w", err)
	}
	if err := claimInf.Informer().AddIndexers(cache.Indexers{claimPrefixIndex: indexClaimPrefix}); err != nil {
		return nil, fmt.Errorf("adding claim index: %w", err)
	}
	events := record.NewBroadcaster(record.WithContext(context.Background()))
	events.StartRecordingToSink(&yieldingSink{EventSink: &typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")}, busy: busy})
	recorder := events.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "ordinal-statefulset-controller"})
	c := &Controller{
		client: client, sets: sets, claimIdx: claimInf.Informer().GetIndexer(), revs: revInf.Lister(),
		podIdx: podInf.Informer().GetIndexer(), revIdx: revInf.Informer().GetIndexer(),
		synced: []cache.InformerSynced{podInf.Informer().HasSynced, claimInf.Informer().HasSynced, revInf.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "statefulset"}),
		recorder: recorder, events: events,
		history: &apiHistory{client: client}, busy: busy, statusHold: opts.StatusHold, now: time.Now,
		skipAppsV1: opts.SkipAppsV1, release: opts.Release, createLimit: opts.CreateLimit,
	}
	c.remember()
	c.status = newAPIStatus(client, c.memories)
	c.quiet = newQuietWatch(c.deferred.held, busy)
	c.groups = rolloutGroups{held: map[string]string{}}
	c.calls = c.newCaller(opts)
	c.podControl = &apiPodControl{client: client, recorder: recorder, exp: c.exp, calls: c.calls,
		inFlight: opts.BurstInFlight, evictions: c.evictions, budget: burstBudget}
	if opts.Metrics != nil {
		if err := opts.Metrics.Register(newRolloutCollector(c.gauges)); err != nil {
			return nil, fmt.Errorf("registering the rollout gauges: %w", err)
		}
	}
	if setInf != nil {
		c.synced = append(c.synced, setInf.HasSynced)
	}
	if err := c.addHandlers(setInf, podInf.Informer(), claimInf.Informer()); err != nil {
		return nil, err
	}
	if opts.Extended != nil {
		if err := c.addExtended(opts.Extended, opts.Namespace); err != nil {
			return nil, err
		}
		if opts.Namespace == "" || opts.StorageClasses {
			c.watchStorageClasses(factory)
		}
		if opts.Namespace == "" || opts.Nodes {
			factory := newNodeFactory(client)
			if err := c.watchNodes(factory, opts.NodeLossQuarantine); err != nil {
				return nil, fmt.Errorf("node handlers: %w", err)
			}
			c.nodeWatch = newNodeWatch(factory)
			if pc, ok := c.podControl.(*apiPodControl); ok {
				pc.nodes = c.nodeFacts
			}
		}
		watch, err := c.watchConfigMaps(newConfigFactory(client, opts.Namespace))
		if err != nil {
			return nil, fmt.Errorf("ConfigMap handlers: %w", err)
		}
		c.configWatch = watch
		if pc, ok := c.podControl.(*apiPodControl); ok {
			pc.configMaps = c.configMaps
		}
		if c.budgetWatch, err = c.watchBudgets(newBudgetFactory(client, opts.Namespace)); err != nil {
			return nil, fmt.Errorf("PodDisruptionBudget handlers: %w", err)
		}
		if opts.EvictionRequests {
			if err := c.watchEvictions(client, opts.Namespace); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// appsV1Sets returns the informer and lister of apps/v1 StatefulSets. A
// controller that leaves them to another (skip) neither lists nor watches
// them, so its account needs no access to them at all: it gets no informer
// and an empty lister, and every path that would look a set up finds none.
func appsV1Sets(factory informers.SharedInformerFactory, skip bool) (cache.SharedIndexInformer, appslisters.StatefulSetLister) {
	if skip {
		empty := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		return nil, appslisters.NewStatefulSetLister(empty)
	}
	inf := factory.Apps().V1().StatefulSets()
	return inf.Informer(), inf.Lister()
}

// addExtended makes the controller manage extended sets too.
func (c *Controller) addExtended(client *ostsclient.Client, namespace string) error {
	ext, err := newExtendedSets(client, namespace)
	if err != nil {
		return err
	}
	if _, err := ext.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueExtended,
		UpdateFunc: func(_, cur any) { c.enqueueExtended(cur) },
		DeleteFunc: c.enqueueExtended,
	}); err != nil {
		return fmt.Errorf("extended StatefulSet handlers: %w", err)
	}
	c.ext = ext
	c.synced = append(c.synced, ext.informer.HasSynced)
	return nil
}

// Run processes sets with the given number of workers until ctx ends,
// and returns nil then, also when ctx ends before the caches have synced.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	defer c.events.Shutdown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting StatefulSet controller", "workers", workers, "extendedKind", c.ext != nil, "evictionResponder", c.responder != nil)
	if c.ext != nil {
		go c.ext.informer.Run(ctx.Done())
	}
	if c.nodeWatch != nil {
		go c.nodeWatch.run(ctx)
	}
	if c.configWatch != nil {
		go c.configWatch.run(ctx)
	}
	if c.budgetWatch != nil {
		go c.budgetWatch.run(ctx)
	}
	if c.responder != nil {
		c.responder.factory.Start(ctx.Done())
		defer c.responder.factory.Shutdown()
	}
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		// It returns false only once ctx ends: a stop asked for during
		// start-up is a stop, not a failure.
		logger.Info("Stopping StatefulSet controller before its caches synced")
		return nil
	}
	if c.responder != nil {
		go c.responder.run(ctx)
	}
	go c.quiet.run(ctx, c.enqueue)
	c.loop().Run(ctx, workers)
	logger.Info("Stopping StatefulSet controller")
	return nil
}

// loop is the controller's work loop: a failed sync requeues its set with
// backoff; a successful one forgets the set's failures and, if it asked,
// looks at the set again later.
func (c *Controller) loop() workloop.Loop[string] {
	return workloop.Loop[string]{Queue: c.queue, Sync: c.timedSync, Failed: func(ctx context.Context, key string, err error) {
		klog.FromContext(ctx).V(2).Info("Sync failed, requeuing", "statefulset", key, "err", err)
	}}
}

// timedSync syncs one set and records how long it took.
func (c *Controller) timedSync(ctx context.Context, key string) (time.Duration, error) {
	began := time.Now()
	requeue, err := c.sync(ctx, key)
	observeSync(began, err)
	return requeue, err
}

// indexOrphanByParent keys a pod without a controller by namespace and the
// set name its own name carries.
func indexOrphanByParent(obj any) ([]string, error) {
	r, ok := obj.(*podRecord)
	if !ok || r.controllerRef() != nil {
		return nil, nil
	}
	parent, _, ok := planner.SplitPodName(r.Name())
	if !ok {
		return nil, nil
	}
	return []string{r.Namespace() + "/" + parent}, nil
}

// indexClaimPrefix keys a claim by namespace and its name without the
// ordinal; a claim whose name ends in no ordinal is not indexed.
func indexClaimPrefix(obj any) ([]string, error) {
	r, ok := obj.(*claimRecord)
	if !ok {
		return nil, nil
	}
	prefix, _, ok := planner.SplitPodName(r.Name())
	if !ok {
		return nil, nil
	}
	return []string{r.Namespace() + "/" + prefix}, nil
}

func indexOrphanRevision(obj any) ([]string, error) {
	rev, ok := obj.(*appsv1.ControllerRevision)
	if !ok || metav1.GetControllerOfNoCopy(rev) != nil {
		return nil, nil
	}
	return []string{rev.Namespace}, nil
}

func indexByOwner(obj any) ([]string, error) {
	var refs []string
	switch o := obj.(type) {
	case *podRecord:
		if ref := o.controllerRef(); ref != nil {
			refs = []string{string(ref.UID)}
		}
	case *appsv1.ControllerRevision:
		refs = controllerUID(o.OwnerReferences)
	}
	return refs, nil
}
