package controller

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// warningQuiet is how long a warning must have been absent from a set's
// plans before it is reported again. An OrderedReady plan stops at the
// first unhealthy pod, so a warning about a later pod comes and goes from
// sync to sync while nothing changed; a problem that was fixed and comes
// back after this long is news again.
const warningQuiet = 10 * time.Minute

// warningMemory remembers, per set, when each warning was last planned, so
// an odd object produces one Warning event while it lasts, not one per
// sync.
type warningMemory struct {
	mu   sync.Mutex
	seen map[string]map[string]time.Time // set key → warning → last planned
}

func newWarningMemory() *warningMemory {
	return &warningMemory{seen: map[string]map[string]time.Time{}}
}

// fresh returns the warnings to report now: those not planned for the set
// within warningQuiet. It records all of them as planned at now.
func (w *warningMemory) fresh(key string, warnings []planner.Warning, now time.Time) []planner.Warning {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := w.seen[key]
	if seen == nil {
		seen = map[string]time.Time{}
		w.seen[key] = seen
	}
	var out []planner.Warning
	for _, x := range warnings {
		sig := x.Reason + "|" + x.Object + "|" + x.Message + "|" + x.Event
		if last, ok := seen[sig]; !ok || now.Sub(last) > warningQuiet {
			out = append(out, x)
		}
		seen[sig] = now
	}
	for sig, last := range seen {
		if now.Sub(last) > warningQuiet {
			delete(seen, sig)
		}
	}
	return out
}

func (w *warningMemory) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.seen, key)
}

func (c *Controller) reportWarnings(key string, set *appsv1.StatefulSet, warnings []planner.Warning) {
	for _, x := range c.warned.fresh(key, warnings, c.now()) {
		if x.Event != "" {
			c.recorder.Event(set, corev1.EventTypeWarning, x.Reason, x.Event)
			continue
		}
		c.recorder.Eventf(set, corev1.EventTypeWarning, x.Reason, "%s: %s", x.Object, x.Message)
	}
}

func (c *Controller) warnOnce(key string, set *appsv1.StatefulSet, x planner.Warning) {
	c.reportWarnings(key, set, []planner.Warning{x})
}
