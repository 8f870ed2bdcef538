package podcall

import (
	"context"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of the role probe's bounds (RoleProbeOptions).
const (
	DefaultRoleProbeCalls      = 32
	DefaultRoleProbeWriteQPS   = 5.0
	DefaultRoleProbeWriteBurst = 10
)

// RoleProbeOptions bound the role probe across every set the controller
// manages, apart from the client's own rate limit: a namespace whose
// probes flap must not take the API requests every other set's sync
// needs.
type RoleProbeOptions struct {
	// Calls is how many probe calls are in flight at once, over every
	// set (besides the 16 of one set at once).
	Calls int
	// WriteQPS and WriteBurst are the token bucket of the probe's writes:
	// each label or annotation patch takes a token, and so does the event
	// that goes with it. A write whose tokens would not come within the
	// probe's period after its round's answers is left to the next round.
	WriteQPS   float64
	WriteBurst int
}

// withDefaults fills the fields left at zero.
func (o RoleProbeOptions) withDefaults() RoleProbeOptions {
	if o.Calls == 0 {
		o.Calls = DefaultRoleProbeCalls
	}
	if o.WriteQPS == 0 {
		o.WriteQPS = DefaultRoleProbeWriteQPS
	}
	if o.WriteBurst == 0 {
		o.WriteBurst = DefaultRoleProbeWriteBurst
	}
	return o
}

// probeLimits are the role probe's global bounds: a semaphore of calls
// and a token bucket of writes, shared by every set's loop.
type probeLimits struct {
	calls  chan struct{}
	writes *rate.Limiter
}

func newProbeLimits(o RoleProbeOptions) *probeLimits {
	o = o.withDefaults()
	return &probeLimits{calls: make(chan struct{}, o.Calls), writes: rate.NewLimiter(rate.Limit(o.WriteQPS), o.WriteBurst)}
}

// call takes a call slot, waiting while every slot is taken; release
// frees it. It reports false when ctx ended first.
func (l *probeLimits) call(ctx context.Context) (release func(), ok bool) {
	select {
	case l.calls <- struct{}{}:
		return func() { <-l.calls }, true
	case <-ctx.Done():
		return nil, false
	}
}

// admit takes n write tokens, waiting until deadline at most: it reports
// false, and takes none, when they would not come by then.
func (l *probeLimits) admit(ctx context.Context, n int, deadline time.Time) bool {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return l.writes.WaitN(ctx, n) == nil
}
