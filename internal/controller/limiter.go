package controller

import (
	"context"
	"sync/atomic"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Limiter is the client's token bucket (the --qps/--burst every request
// draws from, as in client-go) that also counts the requests waiting for
// a token. While some wait, the bucket is the bottleneck: the controller
// then holds back writes that can wait — count-only status changes and
// events — so pod and claim writes go first, and repeated status changes
// of one set collapse into one write.
type Limiter struct {
	flowcontrol.RateLimiter
	waiting atomic.Int32
}

// Throttle installs a counting token bucket with cfg's QPS and burst and
// returns it; with QPS 0 or less (unthrottled) it changes nothing and
// returns nil, whose Busy is always false.
func Throttle(cfg *rest.Config) *Limiter {
	if cfg.QPS <= 0 || cfg.RateLimiter != nil {
		return nil
	}
	burst := cfg.Burst
	if burst < 1 {
		burst = 1
	}
	l := &Limiter{RateLimiter: flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, burst)}
	cfg.RateLimiter = l
	return l
}

// Wait blocks until a token is free, counting itself as waiting.
func (l *Limiter) Wait(ctx context.Context) error {
	if l.RateLimiter.TryAccept() {
		return nil
	}
	l.waiting.Add(1)
	defer l.waiting.Add(-1)
	return l.RateLimiter.Wait(ctx)
}

// Accept blocks until a token is free, counting itself as waiting.
func (l *Limiter) Accept() {
	if l.RateLimiter.TryAccept() {
		return
	}
	l.waiting.Add(1)
	defer l.waiting.Add(-1)
	l.RateLimiter.Accept()
}

// Busy reports whether a request is waiting for a token.
func (l *Limiter) Busy() bool { return l != nil && l.waiting.Load() > 0 }
