package provisioner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/workloop"
)

// workers is how many items are synced at once. The queue never hands the
// same item to two workers, and a sync is a few API calls and one mkdir or
// rm -r, so two keep a slow removal from stalling new claims without
// crowding a two-core machine.
const workers = 2

// itemKind tells the two kinds of queue item apart.
type itemKind int

const (
	claimItem itemKind = iota
	volumeItem
)

// item is a queue key: a claim (namespace/name) or a volume (name).
type item struct {
	kind      itemKind
	namespace string
	name      string
}

// Provisioner serves claims of its StorageClass with hostPath volumes and
// deletes them again when released; see the package comment for the
// protocol. Create it with New and start it with Run.
type Provisioner struct {
	client kubernetes.Interface
	name   string
	root   string
	// recorder is Config.Recorder, or one Run makes.
	recorder record.EventRecorder

	factory informers.SharedInformerFactory
	claims  corelisters.PersistentVolumeClaimLister
	volumes corelisters.PersistentVolumeLister
	classes storagelisters.StorageClassLister
	vacs    storagelisters.VolumeAttributesClassLister
	synced  []cache.InformerSynced
	// now is the clock of resize delays; time.Now but in tests.
	now func() time.Time

	queue workqueue.TypedRateLimitingInterface[item]
	// ready is closed once the caches have synced and workers run; tests
	// wait on it so that what they create afterwards is seen as a change.
	ready     chan struct{}
	readyOnce sync.Once
	// afterSync, when set (by tests, before Run), is called after every
	// sync: it is how a test knows that a sync which changes nothing ran.
	afterSync func(item, error)
}

// New checks cfg and wires the informers, listers and queue; nothing runs
// until Run.
func New(cfg Config) (*Provisioner, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("provisioner config: %w", err)
	}
	root, err := cfg.absRoot()
	if err != nil {
		return nil, err
	}
	p := &Provisioner{
		client:   cfg.Client,
		name:     cfg.Name,
		root:     root,
		recorder: cfg.Recorder,
		// Resync 0: every retry comes from the rate-limited queue, so a
		// permanent failure is not re-attempted on a timer.
		factory: informers.NewSharedInformerFactory(cfg.Client, 0),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[item](),
			workqueue.TypedRateLimitingQueueConfig[item]{Name: "hostpath-provisioner"}),
		ready: make(chan struct{}),
		now:   time.Now,
	}
	if err := p.watch(); err != nil {
		return nil, err
	}
	return p, nil
}

// watch registers the event handlers: claims requeue themselves, volumes
// themselves (and, when deleted, their claim, which may need a new volume),
// a class change requeues every unbound claim, since it may have been
// waiting for that class, and a volume attributes class change requeues the
// claims that name it.
func (p *Provisioner) watch() error {
	claimInf := p.factory.Core().V1().PersistentVolumeClaims()
	volumeInf := p.factory.Core().V1().PersistentVolumes()
	classInf := p.factory.Storage().V1().StorageClasses()
	vacInf := p.factory.Storage().V1().VolumeAttributesClasses()
	p.claims, p.volumes, p.classes, p.vacs = claimInf.Lister(), volumeInf.Lister(), classInf.Lister(), vacInf.Lister()

	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{claimInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    p.enqueueClaim,
			UpdateFunc: func(_, obj any) { p.enqueueClaim(obj) },
		}},
		{volumeInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    p.enqueueVolume,
			UpdateFunc: func(_, obj any) { p.enqueueVolume(obj) },
			DeleteFunc: p.enqueueVolumeClaim,
		}},
		{classInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { p.enqueueUnboundClaims() },
			UpdateFunc: func(_, _ any) { p.enqueueUnboundClaims() },
		}},
		{vacInf.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    p.enqueueVACClaims,
			UpdateFunc: func(_, obj any) { p.enqueueVACClaims(obj) },
		}},
	}
	for _, h := range handlers {
		reg, err := h.inf.AddEventHandler(h.h)
		if err != nil {
			return fmt.Errorf("adding event handler: %w", err)
		}
		p.synced = append(p.synced, reg.HasSynced)
	}
	return nil
}

// Run provisions and deletes volumes until ctx is done, then stops its
// informers, queue and event broadcaster and returns nil. It returns an
// error only if the volume root cannot be created.
// Run may be called once per Provisioner.
// Steps, in order: create the root, start an event broadcaster (unless a
// recorder was injected), start the informers, wait for their caches, start the workers.
func (p *Provisioner) Run(ctx context.Context) error {
	logger := klog.LoggerWithName(klog.FromContext(ctx), "provisioner")
	ctx = klog.NewContext(ctx, logger)
	if err := ensureRoot(p.root); err != nil {
		return err
	}
	if p.recorder == nil {
		// Made here, not in New: a broadcaster runs a goroutine from birth,
		// which a Provisioner that is never run would leak.
		b := record.NewBroadcaster(record.WithContext(ctx))
		b.StartStructuredLogging(3)
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: p.client.CoreV1().Events("")})
		defer b.Shutdown()
		p.recorder = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: p.name})
	}
	defer p.queue.ShutDown()
	defer p.factory.Shutdown()

	p.factory.StartWithContext(ctx)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, p.synced...) {
		// Only an ended ctx stops the wait: a shutdown before the first sync.
		return nil
	}
	logger.Info("Provisioner started", "provisioner", p.name, "root", p.root)

	p.readyOnce.Do(func() { close(p.ready) })
	workloop.Loop[item]{Queue: p.queue, Sync: p.syncItem, Failed: p.logFailure}.Run(ctx, workers)
	logger.Info("Provisioner stopped")
	return nil
}

// syncItem syncs one item. A transient failure requeues it with per-item
// exponential backoff (5ms doubling to 1000s) under an overall rate limit,
// so a failing item never loops hot; success or a permanent failure
// forgets its backoff; a requeueError looks at it again after its delay.
func (p *Provisioner) syncItem(ctx context.Context, it item) (time.Duration, error) {
	var err error
	switch it.kind {
	case claimItem:
		err = p.syncClaim(ctx, it.namespace, it.name)
	case volumeItem:
		err = p.syncVolume(ctx, it.name)
	}
	if p.afterSync != nil {
		p.afterSync(it, err)
	}
	if re, ok := errors.AsType[*requeueError](err); ok {
		return re.after, nil
	}
	return 0, err
}

func (p *Provisioner) logFailure(ctx context.Context, it item, err error) {
	klog.FromContext(ctx).Error(err, "Sync failed, will retry", "kind", it.kind, "namespace", it.namespace, "name", it.name,
		"retries", p.queue.NumRequeues(it))
}

func (p *Provisioner) enqueueClaim(obj any) {
	claim, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("expected a PersistentVolumeClaim, got %T", obj))
		return
	}
	p.queue.Add(item{kind: claimItem, namespace: claim.Namespace, name: claim.Name})
}

func (p *Provisioner) enqueueVolume(obj any) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("expected a PersistentVolume, got %T", obj))
		return
	}
	p.queue.Add(item{kind: volumeItem, name: pv.Name})
}

// enqueueVolumeClaim requeues the claim of a deleted volume of ours: if the
// claim is still unbound, it needs a new volume.
func (p *Provisioner) enqueueVolumeClaim(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok || pv.Annotations[annProvisionedBy] != p.name || pv.Spec.ClaimRef == nil {
		return
	}
	p.queue.Add(item{kind: claimItem, namespace: pv.Spec.ClaimRef.Namespace, name: pv.Spec.ClaimRef.Name})
}

// enqueueUnboundClaims requeues every claim that has no volume yet.
func (p *Provisioner) enqueueUnboundClaims() {
	claims, err := p.claims.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("listing claims: %w", err))
		return
	}
	for _, c := range claims {
		if c.Spec.VolumeName == "" {
			p.enqueueClaim(c)
		}
	}
}

// enqueueVACClaims requeues the claims that name a volume attributes class
// that was created or changed: a claim may have been waiting for it.
func (p *Provisioner) enqueueVACClaims(obj any) {
	vac, ok := obj.(*storagev1.VolumeAttributesClass)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("expected a VolumeAttributesClass, got %T", obj))
		return
	}
	claims, err := p.claims.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("listing claims: %w", err))
		return
	}
	for _, c := range claims {
		if ptr.Deref(c.Spec.VolumeAttributesClassName, "") == vac.Name {
			p.enqueueClaim(c)
		}
	}
}

// String makes itemKind readable in logs.
func (k itemKind) String() string {
	if k == volumeItem {
		return "PersistentVolume"
	}
	return "PersistentVolumeClaim"
}
