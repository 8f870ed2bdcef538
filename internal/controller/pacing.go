package controller

import (
	"time"
)

// Pacing bounds how often one set is planned while its pods change faster
// than a sync takes to notice. Each set has a bucket of paceBurst syncs,
// refilled at one sync per interval, paceIntervalPerPod for each pod its
// last sync saw, at most paceMaxInterval. A set whose bucket has a sync
// left is synced at once, so the first reaction to a change after a quiet
// moment is never delayed, nor is any reaction of a set whose pods change
// less often than its interval (an OrderedReady roll-out: a few changes a
// second, and 2.5 ms for 50 pods). Under a storm (hundreds of pod changes
// a second) the set is planned once per interval, with every change since,
// instead of once per change: a sync costs a few microseconds per pod
// (BenchmarkAPodEventOfAThousandPodSetThatIsChanging), so its planning
// takes a small share of a CPU whatever its size. The interval follows
// the set's size, not the measured cost of its syncs, which a loaded
// machine inflates.
const (
	paceBurst          = 4
	paceIntervalPerPod = 50 * time.Microsecond
	paceMaxInterval    = time.Second
)

// syncPace is one set's bucket: tokens syncs left as of at, refilled one
// per interval.
type syncPace struct {
	tokens   float64
	at       time.Time
	interval time.Duration
}

// left is how many syncs the bucket holds at now.
func (p syncPace) left(now time.Time) float64 {
	if p.interval <= 0 {
		return paceBurst
	}
	return min(paceBurst, p.tokens+float64(now.Sub(p.at))/float64(p.interval))
}

// wait is how long a sync wanted at now must wait for a token; 0 when the
// bucket holds one.
func (p syncPace) wait(now time.Time) time.Duration {
	left := p.left(now)
	if left >= 1 {
		return 0
	}
	return time.Duration((1 - left) * float64(p.interval))
}

// spend takes the token of a sync that began at began and saw pods pods,
// which sets the interval from then on.
func (p syncPace) spend(began time.Time, pods int) syncPace {
	tokens := max(0, p.left(began)-1)
	return syncPace{tokens: tokens, at: began, interval: min(paceMaxInterval, time.Duration(pods)*paceIntervalPerPod)}
}

// paces is every set's bucket as of its last sync, by key: a memory of
// its own (memory.go), which the queue's handlers read for every event.
type paces struct{ buckets *perSet[syncPace] }

func newPaces(ms *memories) paces { return paces{buckets: newPerSet[syncPace](ms)} }

// paceWait is how long a sync of key wanted now must wait; 0 for a set the
// controller has not synced.
func (s paces) paceWait(key string, now time.Time) time.Duration {
	var wait time.Duration
	s.buckets.read(key, func(p *syncPace) { wait = p.wait(now) })
	return wait
}

// paced records a sync of key that began at began and saw pods pods. A
// set's first bucket is full (the zero syncPace holds paceBurst).
func (s paces) paced(key string, began time.Time, pods int) {
	s.buckets.update(key, func(p *syncPace) { *p = p.spend(began, pods) })
}

// enqueue asks for a sync of key: at once while the set's bucket holds a
// sync, else when it will. The queue keeps one entry per key, and a key
// added while it is being synced is synced once more afterwards, however
// many changes arrived meanwhile.
func (c *Controller) enqueue(key string) {
	if wait := c.paces.paceWait(key, c.now()); wait > 0 {
		c.queue.AddAfter(key, wait)
		return
	}
	c.queue.Add(key)
}
