// Package workloop runs the workers of a rate-limited work queue: each
// worker takes a key, syncs it, and puts it back as the sync's result
// says. The StatefulSet controller, the volume provisioner, the simulated
// nodes and the benchmark's floor client all run this one loop.
package workloop

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Sync handles one key. An error retries the key with the queue's
// backoff; otherwise the key's failures are forgotten, and a positive
// duration looks at it again after that long.
type Sync[T comparable] func(ctx context.Context, key T) (after time.Duration, err error)

// Loop is a queue and what syncs its keys.
type Loop[T comparable] struct {
	Queue workqueue.TypedRateLimitingInterface[T]
	Sync  Sync[T]
	// Failed, if set, is told of a failed sync before its key is put back
	// (to log it, with the retries so far from Queue.NumRequeues).
	Failed func(ctx context.Context, key T, err error)
}

// Run runs workers until ctx ends, then shuts the queue down and returns
// once every worker has finished the key it held.
func (l Loop[T]) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for l.Next(ctx) {
			}
		})
	}
	<-ctx.Done()
	l.Queue.ShutDown()
	wg.Wait()
}

// Next takes one key, waiting for it, and syncs it; it returns false
// once the queue is shut down.
func (l Loop[T]) Next(ctx context.Context) bool {
	key, shutdown := l.Queue.Get()
	if shutdown {
		return false
	}
	defer l.Queue.Done(key)
	after, err := l.Sync(ctx, key)
	if err != nil {
		if l.Failed != nil {
			l.Failed(ctx, key, err)
		}
		l.Queue.AddRateLimited(key)
		return true
	}
	l.Queue.Forget(key)
	if after > 0 {
		l.Queue.AddAfter(key, after)
	}
	return true
}
