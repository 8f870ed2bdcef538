package controller

import (
	"context"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// nodeWatch caches Nodes and PersistentVolumes (nodeFacts) from the first
// sync of an extended set on, which cannot be planned without them. A
// cluster of apps/v1 sets never lists or watches them: every node's and
// every bound volume's changes, cluster-wide, would cost such a controller
// CPU and memory for nothing (a 1000-pod scale-up with claims brings a
// thousand volumes, each written several times).
//
// The caches have an informer factory of their own (newNodeFactory, on
// which watchNodes registers them), so that starting the controller's
// factory does not start them; run starts them once asked for. An
// extended set's sync waits (requeues) until they have synced, as every
// sync used to wait for them before the first one.
type nodeWatch struct {
	factory informers.SharedInformerFactory
	synced  []cache.InformerSynced
	// wanted is closed, once, by the first sync that needs the caches.
	wanted chan struct{}
	want   sync.Once
	ready  atomic.Bool
}

// newNodeFactory is the informer factory of the node and volume caches:
// cluster-wide, trimmed as the controller's own (stripForCache).
func newNodeFactory(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(stripForCache))
}

// newNodeWatch returns the watch, not started, of factory's node and
// volume informers.
func newNodeWatch(factory informers.SharedInformerFactory) *nodeWatch {
	nodes, volumes := factory.Core().V1().Nodes().Informer(), factory.Core().V1().PersistentVolumes().Informer()
	return &nodeWatch{factory: factory, wanted: make(chan struct{}), synced: []cache.InformerSynced{nodes.HasSynced, volumes.HasSynced}}
}

// need asks for the caches and reports whether they have synced.
func (w *nodeWatch) need() bool {
	w.want.Do(func() { close(w.wanted) })
	return w.ready.Load()
}

// run starts the caches once a sync needs them, marks them ready once
// they have synced, and stops them when ctx ends.
func (w *nodeWatch) run(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-w.wanted:
	}
	w.factory.Start(ctx.Done())
	defer w.factory.Shutdown()
	if cache.WaitForCacheSync(ctx.Done(), w.synced...) {
		w.ready.Store(true)
	}
	<-ctx.Done()
}

// nodesReady reports whether an extended set may be planned: the node
// caches, when the controller reads nodes, have synced. The first call
// starts them.
func (c *Controller) nodesReady() bool {
	return c.nodeWatch == nil || c.nodeWatch.need()
}
