package nodes

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// FieldManager names the in-place part's status writes in a pod's
// managedFields, apart from kwok's.
const FieldManager = "ordinal-simulated-kubelet"

// inPlaceWorkers is how many pods are synced at once; a sync is one status
// write, and the queue never hands one pod to two workers.
const inPlaceWorkers = 2

// inPlace is the part of the simulated kubelet that kwok's stages cannot
// play: it reacts to a running pod's spec changing in place (a new image,
// a resize through the pod's resize subresource) and to its readiness
// gates, comparing spec with status (planPod), so it resumes after a
// restart from what the pods record.
type inPlace struct {
	client     kubernetes.Interface
	readyDelay time.Duration
	recorder   record.EventRecorder
	pods       corelisters.PodLister
	synced     cache.InformerSynced
	factory    informers.SharedInformerFactory
	queue      workqueue.TypedRateLimitingInterface[string]
	now        func() time.Time
}

// newInPlace wires an informer on the pods of the simulated nodes.
func newInPlace(client kubernetes.Interface, readyDelay time.Duration) (*inPlace, error) {
	ip := &inPlace{
		client: client, readyDelay: readyDelay, now: time.Now,
		factory: informers.NewSharedInformerFactory(client, 0),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "simulated-kubelet"}),
	}
	inf := ip.factory.Core().V1().Pods()
	ip.pods = inf.Lister()
	reg, err := inf.Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: onSimulatedNode,
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    ip.enqueue,
			UpdateFunc: func(_, obj any) { ip.enqueue(obj) },
		},
	})
	if err != nil {
		return nil, fmt.Errorf("simulated kubelet: adding event handler: %w", err)
	}
	ip.synced = reg.HasSynced
	return ip, nil
}

// onSimulatedNode reports whether obj is a pod bound to a simulated node.
func onSimulatedNode(obj any) bool {
	pod, ok := obj.(*corev1.Pod)
	return ok && strings.HasPrefix(pod.Spec.NodeName, nodePrefix)
}

func (ip *inPlace) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		ip.queue.Add(key)
	}
}

// run syncs pods until ctx ends. Steps: start an event broadcaster, the
// informer, wait for its cache, start the workers; on return everything is
// stopped again.
func (ip *inPlace) run(ctx context.Context) {
	b := record.NewBroadcaster(record.WithContext(ctx))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: ip.client.CoreV1().Events("")})
	defer b.Shutdown()
	ip.recorder = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet"})
	loop := queueLoop{what: "Simulated kubelet sync", factory: ip.factory, synced: ip.synced, queue: ip.queue, workers: inPlaceWorkers, sync: ip.sync}
	loop.run(ctx)
}

// sync syncs one pod: a failed write (a conflict with kwok's or anyone's
// newer status) is retried with backoff, and a plan that waits for a delay
// looks at the pod again then.
func (ip *inPlace) sync(ctx context.Context, key string) (time.Duration, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	pod, err := ip.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	sim, err := parsePodSim(pod, ip.readyDelay)
	if err != nil {
		ip.recorder.Event(pod, corev1.EventTypeWarning, "FailedSimulation", err.Error())
		return 0, nil
	}
	plan := planPod(pod, sim, ip.now())
	if plan.status != nil {
		update := pod.DeepCopy()
		update.Status = *plan.status
		if _, err := ip.client.CoreV1().Pods(ns).UpdateStatus(ctx, update, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
			return 0, fmt.Errorf("updating status of pod %s: %w", key, err)
		}
	}
	for _, e := range plan.events {
		ip.recorder.Event(pod, e.typ, e.reason, e.message)
	}
	return plan.after, nil
}
