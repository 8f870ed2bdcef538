package play

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// pods watches a copy's pods: once started, it records every change of a
// pod's revision, readiness or existence as a sample, on this process's
// clock (the API's timestamps keep whole seconds).
type pods struct {
	set   string
	store cache.Store

	mu         sync.Mutex
	t0         time.Time
	samples    []forecast.Sample
	last       map[string]forecast.Sample
	readySince map[string]time.Time
	moved      time.Time
}

// watchPods runs a pod informer on ns until ctx ends and waits for its
// first list.
func watchPods(ctx context.Context, c kubernetes.Interface, ns, set string) (*pods, error) {
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace(ns))
	inf := f.Core().V1().Pods().Informer()
	p := &pods{set: set, store: inf.GetStore(), last: map[string]forecast.Sample{}, readySince: map[string]time.Time{}}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.see(obj, false) },
		UpdateFunc: func(_, obj any) { p.see(obj, false) },
		DeleteFunc: func(obj any) { p.see(obj, true) },
	}); err != nil {
		return nil, fmt.Errorf("watching the copy's pods: %w", err)
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("the copy's pod informer did not sync")
	}
	return p, nil
}

// start makes now the change's moment: every pod's state is a sample at
// 0, and from now on every change is one.
func (p *pods) start(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t0, p.moved = now, now
	for _, obj := range p.store.List() {
		s := sampleOf(obj.(*corev1.Pod), false)
		p.samples = append(p.samples, s)
		p.last[s.Pod] = s
		if s.Ready {
			p.readySince[s.Pod] = time.Time{} // Available already
		}
	}
}

func (p *pods) see(obj any, gone bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.t0.IsZero() {
		return
	}
	s := sampleOf(pod, gone)
	s.At = now.Sub(p.t0)
	was, known := p.last[s.Pod]
	was.At = s.At
	if known && was == s {
		return
	}
	p.samples = append(p.samples, s)
	p.last[s.Pod] = s
	p.moved = now
	switch {
	case s.Ready && !was.Ready:
		p.readySince[s.Pod] = now
	case !s.Ready:
		delete(p.readySince, s.Pod)
	}
}

func sampleOf(pod *corev1.Pod, gone bool) forecast.Sample {
	return forecast.Sample{
		Pod: pod.Name, Revision: pod.Labels[appsv1.ControllerRevisionHashLabelKey], Gone: gone,
		Ready: !gone && planner.IsRunningAndReady(pod), Terminating: !gone && pod.DeletionTimestamp != nil,
	}
}

// settled is the revision every wanted pod at or above the partition
// runs, each pod Ready for minReady (Available), with no other pod left;
// "" when there is none. Pods below the partition may run any revision.
func (p *pods) settled(replicas, partition int32, minReady time.Duration, now time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	rev, n := "", int32(0)
	for _, obj := range p.store.List() {
		pod := obj.(*corev1.Pod)
		s, seen := p.last[pod.Name]
		ord, own := planner.ParseOrdinal(p.set, pod.Name)
		if !seen || !own || s.Gone || s.Terminating || !s.Ready {
			return ""
		}
		if since := p.readySince[pod.Name]; !since.IsZero() && now.Sub(since) < minReady {
			return ""
		}
		n++
		if ord < partition {
			continue
		}
		if rev != "" && s.Revision != rev {
			return ""
		}
		rev = s.Revision
	}
	if n != replicas {
		return ""
	}
	return rev
}

// result is the samples so far and when a pod last moved, since the
// change.
func (p *pods) result() ([]forecast.Sample, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]forecast.Sample, len(p.samples))
	copy(out, p.samples)
	return out, p.moved.Sub(p.t0)
}
