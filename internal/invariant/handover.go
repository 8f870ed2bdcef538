package invariant

import (
	"context"
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Controller names a StatefulSet controller that can be in charge of the
// watched sets.
type Controller string

// The controllers.
const (
	// Ordinal is in charge until the first hand-over.
	Ordinal Controller = "ordinal"
	// Builtin is upstream's controller (kube-controller-manager's).
	Builtin Controller = "builtin"
)

// handOver is the commit position after which another controller is in
// charge.
type handOver struct {
	rv   uint64
	time time.Time
	to   Controller
}

// HandOver records that controller to is in charge of every change
// committed after resourceVersion rv. The caller has stopped the previous
// controller before reading rv and starts to only afterwards, so no
// controller's write falls on the wrong side. at is when rv was read.
func (c *Checker) HandOver(rv uint64, at time.Time, to Controller) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handOvers = append(c.handOvers, handOver{rv: rv, time: at, to: to})
}

// handOversByRV returns the recorded hand-overs in commit order.
func (c *Checker) handOversByRV() []handOver {
	c.mu.Lock()
	out := append([]handOver(nil), c.handOvers...)
	c.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].rv < out[j].rv })
	return out
}

// HandOver records that controller to takes charge now: it reads the
// namespace's current resourceVersion (a consistent list) and calls
// Checker.HandOver with it. Call it after the previous controller has
// exited and before to starts; it retries for up to 30s while the API
// server does not answer.
func (w *Watcher) HandOver(ctx context.Context, to Controller) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := w.client.CoreV1().Pods(w.ns).List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			if rv := ParseRV(list.ResourceVersion); rv != 0 {
				w.Checker.HandOver(rv, time.Now(), to)
				return nil
			}
			err = fmt.Errorf("resourceVersion %q is not a number", list.ResourceVersion)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("reading the resourceVersion at the hand-over to %s: %w", to, err)
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

// attribute names the controller in charge of each violation's change,
// when there were hand-overs.
func attribute(vs []Violation, handOvers []handOver) {
	if len(handOvers) == 0 {
		return
	}
	for i := range vs {
		if vs[i].RV != 0 {
			vs[i].InCharge = inChargeAfter(handOvers, vs[i].RV)
		}
	}
}

// inChargeAfter returns who is in charge of a change committed at rv,
// given the hand-overs in commit order.
func inChargeAfter(handOvers []handOver, rv uint64) Controller {
	who := Ordinal
	for _, h := range handOvers {
		if h.rv >= rv {
			break
		}
		who = h.to
	}
	return who
}
