package floor

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/ordinal-sh/ordinal/internal/workloop"
)

// maxInFlight bounds one sync's concurrent writes, like upstream's
// slow-start batch cap.
const maxInFlight = 500

// Floor reconciles StatefulSets with the fewest possible writes.
type Floor struct {
	client kubernetes.Interface
	sets   appslisters.StatefulSetLister
	pods   corelisters.PodLister
	claims corelisters.PersistentVolumeClaimLister
	synced []cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	exp    *pending
	// Writes counts every write request issued, failed or not.
	Writes atomic.Int64
}

// New wires a Floor to the factory's informers.
func New(client kubernetes.Interface, f informers.SharedInformerFactory) (*Floor, error) {
	setInf, podInf, claimInf := f.Apps().V1().StatefulSets(), f.Core().V1().Pods(), f.Core().V1().PersistentVolumeClaims()
	fl := &Floor{client: client, sets: setInf.Lister(), pods: podInf.Lister(), claims: claimInf.Lister(),
		synced: []cache.InformerSynced{setInf.Informer().HasSynced, podInf.Informer().HasSynced, claimInf.Informer().HasSynced},
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		exp:    newPending()}
	enqSet := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			fl.queue.Add(key)
		}
	}
	if _, err := setInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqSet, UpdateFunc: func(_, n any) { enqSet(n) }, DeleteFunc: enqSet}); err != nil {
		return nil, fmt.Errorf("watching sets: %w", err)
	}
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: fl.onPod, UpdateFunc: func(_, n any) { fl.onPod(n) }, DeleteFunc: fl.onPod}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return fl, nil
}

// onPod settles expectations and enqueues the pod's owning set.
func (fl *Floor) onPod(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	fl.exp.observe(pod)
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "StatefulSet" {
		fl.queue.Add(pod.Namespace + "/" + ref.Name)
	}
}

// Run processes the queue with workers until ctx ends.
func (fl *Floor) Run(ctx context.Context, workers int) error {
	defer fl.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), fl.synced...) {
		return fmt.Errorf("caches did not sync")
	}
	workloop.Loop[string]{Queue: fl.queue, Sync: func(ctx context.Context, key string) (time.Duration, error) {
		return 0, fl.sync(ctx, key)
	}}.Run(ctx, workers)
	return nil
}

// WriteStats rewrites path with the write count every 100 ms until ctx ends.
func (fl *Floor) WriteStats(ctx context.Context, path string) {
	var last int64 = -1
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if n := fl.Writes.Load(); n != last {
			tmp := path + ".tmp"
			if os.WriteFile(tmp, []byte(strconv.FormatInt(n, 10)), 0o644) == nil && os.Rename(tmp, path) == nil {
				last = n
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// maxUnavailable is the set's rolling-update budget, at least 1.
func maxUnavailable(set *appsv1.StatefulSet, replicas int) int {
	v := intstr.FromInt32(1)
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		v = *ru.MaxUnavailable
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&v, replicas, false)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// pending remembers the floor's own writes until its informer shows them,
// so a stale cache never makes it write twice.
type pending struct {
	mu      sync.Mutex
	creates map[string]bool    // namespace/name created, not yet seen
	deletes map[types.UID]bool // deleted, not yet seen terminating or gone
}

func newPending() *pending {
	return &pending{creates: map[string]bool{}, deletes: map[types.UID]bool{}}
}

func (p *pending) observe(pod *corev1.Pod) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.deletes[pod.UID] {
		delete(p.creates, pod.Namespace+"/"+pod.Name)
	}
	if pod.DeletionTimestamp != nil {
		delete(p.deletes, pod.UID)
	}
}

func (p *pending) created(key string, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.creates[key] = true
	} else {
		delete(p.creates, key)
	}
}

func (p *pending) deleted(uid types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deletes[uid] = true
}

func (p *pending) state(key string, pod *corev1.Pod) (creating, deleting bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.creates[key], pod != nil && p.deletes[pod.UID]
}
