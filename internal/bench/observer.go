package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// setLabel names, on every benchmark pod, the StatefulSet it belongs to.
const setLabel = "bench.ordinal.dev/set"

// observer watches the benchmark namespace's pods: it decides when the end
// state is reached and, while recording, times the contender's reactions.
type observer struct {
	store cache.Store

	mu        sync.Mutex
	recording bool
	readyAt   []time.Time // a pod turned Ready
	writeAt   []time.Time // a pod was created or marked for deletion
	lastWrite time.Time   // latest pod write seen, recording or not
	added     int64       // pods created while recording
	marks     int64       // pods marked for deletion while recording
	gone      int64       // pods that finished terminating while recording
	events    int64       // pod watch events (add, update, delete) while recording
	lag       *statusLag  // the sets' status.readyReplicas against their Ready pods
	floor     readyFloor  // the fewest Ready members of one set
}

// startObserver runs informers on namespace's pods and on its sets of
// resource sets (apps/v1 or the extended kind), and waits for their sync.
func startObserver(ctx context.Context, c kubernetes.Interface, dyn dynamic.Interface, sets schema.GroupVersionResource, namespace string) (*observer, error) {
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace(namespace))
	inf := f.Core().V1().Pods().Informer()
	o := &observer{store: inf.GetStore(), lag: newStatusLag()}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { o.notePod(obj); o.noteWrite(time.Now(), true) },
		UpdateFunc: o.onUpdate,
		DeleteFunc: func(obj any) { o.notePodGone(obj); o.note(func() { o.gone++; o.events++ }) },
	}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	df := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, namespace, nil)
	setInf := df.ForResource(sets).Informer()
	if _, err := setInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { o.noteSet(obj, false) },
		UpdateFunc: func(_, obj any) { o.noteSet(obj, false) },
		DeleteFunc: func(obj any) { o.noteSet(obj, true) },
	}); err != nil {
		return nil, fmt.Errorf("watching %s: %w", sets.Resource, err)
	}
	f.Start(ctx.Done())
	df.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced, setInf.HasSynced) {
		return nil, fmt.Errorf("pod and set informers did not sync")
	}
	return o, nil
}

// notePod counts a pod's readiness in the status lag.
func (o *observer) notePod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lag.pod(pod.Namespace+"/"+pod.Name, pod.Labels[setLabel], pod, time.Now())
	o.floor.pod(pod.Namespace+"/"+pod.Name, pod.Labels[setLabel], pod)
}

// notePodGone takes a deleted pod out of the status lag.
func (o *observer) notePodGone(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lag.pod(pod.Namespace+"/"+pod.Name, pod.Labels[setLabel], nil, time.Now())
	o.floor.pod(pod.Namespace+"/"+pod.Name, pod.Labels[setLabel], nil)
}

// noteSet records a set's status.readyReplicas in the status lag.
func (o *observer) noteSet(obj any, gone bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	ready, _, _ := unstructured.NestedInt64(u.Object, "status", "readyReplicas")
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lag.setStatus(u.GetName(), int32(ready), gone, time.Now())
}

// statusLag returns the last window's status lag.
func (o *observer) statusLag() (lagResult, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lag.result()
}

func (o *observer) onUpdate(oldObj, newObj any) {
	oldPod, ok1 := oldObj.(*corev1.Pod)
	newPod, ok2 := newObj.(*corev1.Pod)
	if !ok1 || !ok2 {
		return
	}
	now := time.Now()
	o.notePod(newPod)
	o.note(func() { o.events++ })
	if !podReady(oldPod) && podReady(newPod) && newPod.DeletionTimestamp == nil {
		o.note(func() { o.readyAt = append(o.readyAt, now) })
	}
	if oldPod.DeletionTimestamp == nil && newPod.DeletionTimestamp != nil {
		o.noteWrite(now, false)
	}
}

// noteWrite records a pod creation or deletion mark seen at t.
func (o *observer) noteWrite(t time.Time, created bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lastWrite = t
	if !o.recording {
		return
	}
	o.writeAt = append(o.writeAt, t)
	if created {
		o.events++ // a mark is an update, counted by onUpdate
		o.added++
	} else {
		o.marks++
	}
}

// lastWriteSince is how long after since the latest pod write was seen;
// 0 if none was.
func (o *observer) lastWriteSince(since time.Time) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lastWrite.Before(since) {
		return 0
	}
	return o.lastWrite.Sub(since)
}

// note runs f under the lock if the observer is recording.
func (o *observer) note(f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.recording {
		f()
	}
}

// record starts or stops recording.
func (o *observer) record(on bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recording = on
	o.lag.record(on, time.Now())
	o.floor.record(on)
}

// fewestReady returns the fewest Ready members any one set had in the
// last recorded window.
func (o *observer) fewestReady() (int32, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.floor.result()
}

// counts returns pods created, marked for deletion and gone while recording.
func (o *observer) counts() (added, marks, gone int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.added, o.marks, o.gone
}

// podEvents returns how many pod watch events the observer saw while
// recording: what a controller watching the namespace's pods handles.
func (o *observer) podEvents() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.events
}

// firstWriteAfter returns the first pod creation or deletion mark seen,
// while recording, after t.
func (o *observer) firstWriteAfter(t time.Time) (time.Time, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, w := range o.writeAt {
		if w.After(t) {
			return w, true
		}
	}
	return time.Time{}, false
}

// reactions pairs every Ready transition with the next pod write after it.
func (o *observer) reactions() []time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return pairReactions(o.readyAt, o.writeAt)
}

// pairReactions returns, for each ready time, the delay to the first write
// strictly after it; ready times with no later write are dropped. Both
// slices are in time order.
func pairReactions(ready, writes []time.Time) []time.Duration {
	var out []time.Duration
	j := 0
	for _, r := range ready {
		for j < len(writes) && !writes[j].After(r) {
			j++
		}
		if j == len(writes) {
			break
		}
		out = append(out, writes[j].Sub(r))
	}
	return out
}

// desiredSet is what the harness asked of one StatefulSet.
type desiredSet struct {
	Replicas int32
	Image    string
	// Config, when set, is the copy of the set's ConfigMap every pod must
	// read (configset.go).
	Config string
	// AvoidNode, when set, is a node no pod of the set may be on: the
	// node the node-drain scenario drains.
	AvoidNode string
}

// converged reports whether the pods are exactly the desired ones: for each
// set, ordinals 0..replicas-1, Ready, not terminating, running the set's
// image, off the set's AvoidNode, and no other pod in the namespace. why
// says what is missing.
func (o *observer) converged(want map[string]desiredSet) (ok bool, why string) {
	seen := map[string]int32{}
	for _, obj := range o.store.List() {
		pod := obj.(*corev1.Pod)
		set := pod.Labels[setLabel]
		d, known := want[set]
		ord, err := strconv.Atoi(pod.Name[strings.LastIndexByte(pod.Name, '-')+1:])
		switch {
		case !known || err != nil || int32(ord) >= d.Replicas:
			return false, "extra pod " + pod.Name
		case pod.DeletionTimestamp != nil:
			return false, "terminating pod " + pod.Name
		case len(pod.Spec.Containers) == 0 || pod.Spec.Containers[0].Image != d.Image:
			return false, "old pod " + pod.Name
		case !podReady(pod):
			return false, "unready pod " + pod.Name
		case d.AvoidNode != "" && pod.Spec.NodeName == d.AvoidNode:
			return false, "pod " + pod.Name + " is still on node " + d.AvoidNode
		case d.Config != "" && !readsConfig(pod, d.Config):
			return false, "pod " + pod.Name + " does not read " + d.Config
		}
		seen[set]++
	}
	for name, d := range want {
		if seen[name] != d.Replicas {
			return false, fmt.Sprintf("set %s has %d of %d pods", name, seen[name], d.Replicas)
		}
	}
	return true, ""
}

// pods returns the namespace's pods as last seen.
func (o *observer) pods() []*corev1.Pod {
	objs := o.store.List()
	out := make([]*corev1.Pod, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj.(*corev1.Pod))
	}
	return out
}

// waitConverged polls the informer's store until converged or timeout.
func (o *observer) waitConverged(ctx context.Context, want map[string]desiredSet, timeout time.Duration, alive func() error) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, why := o.converged(want)
		if ok {
			return nil
		}
		if err := alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no end state after %s: %s", timeout, why)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
