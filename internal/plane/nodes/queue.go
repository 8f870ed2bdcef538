package nodes

import (
	"context"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/workloop"
)

// queueLoop is the loop the simulated kubelet's parts share: an informer
// factory feeding a work queue, and workers that sync one key at a time.
type queueLoop struct {
	// what names the part in its log lines: "Simulated election".
	what    string
	factory informers.SharedInformerFactory
	synced  cache.InformerSynced
	queue   workqueue.TypedRateLimitingInterface[string]
	workers int
	// sync handles one key; an error retries it with backoff, a positive
	// duration looks at it again after that long.
	sync func(ctx context.Context, key string) (time.Duration, error)
}

// run starts the informers, waits for their caches and runs the workers
// until ctx ends; on return all of it has stopped.
func (l *queueLoop) run(ctx context.Context) {
	defer l.queue.ShutDown()
	defer l.factory.Shutdown()
	l.factory.StartWithContext(ctx)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, l.synced) {
		return
	}
	workloop.Loop[string]{Queue: l.queue, Sync: l.sync, Failed: func(ctx context.Context, key string, err error) {
		klog.FromContext(ctx).V(2).Info(l.what+" failed, will retry", "key", key, "err", err)
	}}.Run(ctx, l.workers)
}
