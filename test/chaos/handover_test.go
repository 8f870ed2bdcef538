package chaos

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// charge is who runs a run's sets: Ordinal's replicas (with the run's
// replica count and API fault rate) or upstream's controller as its own
// process. Only one of them runs at a time: a hand-over stops every
// process of one before it starts the other.
type charge struct {
	who       invariant.Controller
	procs     []*replica
	term      int // how many times a controller took charge
	replicas  int
	faultRate float64
	handOvers map[string]int // by direction, "ordinal->builtin"
}

// takeCharge starts controller who on the run's namespace.
func (r *run) takeCharge(who invariant.Controller) {
	c := &r.charge
	c.who, c.procs = who, nil
	if who == invariant.Builtin {
		c.procs = append(c.procs, startBuiltin(r.dir, fmt.Sprintf("builtin-t%d", c.term), r.ns))
	} else {
		for i := 0; i < c.replicas; i++ {
			c.procs = append(c.procs, startReplica(r.dir, fmt.Sprintf("chaos-t%d-%d", c.term, i), r.ns, c.faultRate,
				r.seed*100+int64(2*c.term+i)))
		}
	}
	r.replicas = append(r.replicas, c.procs...)
	c.term++
}

// stopCharge stops every process of the controller in charge (SIGKILL
// when kill is set, else SIGTERM) and returns once all have exited.
func (r *run) stopCharge(kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	for _, p := range r.charge.procs {
		p.halt(sig)
	}
	r.charge.procs = nil
}

// handOver starts a scale or a rolling update, lets the controller in
// charge begin it, then hands the sets over to the other controller, as a
// cluster switching between kube-controller-manager's StatefulSet
// controller and Ordinal does.
func (r *run) handOver(ctx context.Context) bool {
	if r.rng.Intn(2) == 0 {
		r.scale(ctx)
	} else {
		r.update(ctx)
	}
	time.Sleep(time.Duration(r.rng.Intn(1500)) * time.Millisecond)
	kill := r.rng.Intn(2) == 0
	from, to := r.charge.who, invariant.Ordinal
	if from == invariant.Ordinal {
		to = invariant.Builtin
	}
	if err := r.switchTo(ctx, to, kill); err != nil {
		r.t.Errorf("handing over to %s: %v", to, err)
	}
	if r.charge.handOvers == nil {
		r.charge.handOvers = map[string]int{}
	}
	r.charge.handOvers[direction(from, to)]++
	r.logf("hand over %s -> %s (%s)", from, to, signalName(kill))
	return true
}

// switchTo stops the controller in charge (SIGKILL when kill is set, else
// SIGTERM), records the hand-over with the watcher and starts to.
func (r *run) switchTo(ctx context.Context, to invariant.Controller, kill bool) error {
	r.stopCharge(kill)
	err := r.watcher.HandOver(ctx, to)
	r.takeCharge(to)
	return err
}

func direction(from, to invariant.Controller) string { return string(from) + "->" + string(to) }

func signalName(kill bool) string {
	if kill {
		return "SIGKILL"
	}
	return "SIGTERM"
}

// handOverSteps picks n of the run's -ops steps, at random, to be
// hand-overs. Each hand-over switches to the other controller, so two of
// them go from Ordinal to the built-in controller and back again.
func (r *run) handOverSteps(n int) map[int]bool {
	steps := map[int]bool{}
	for _, i := range r.rng.Perm(*flagOps)[:max(0, min(n, *flagOps))] {
		steps[i] = true
	}
	return steps
}
