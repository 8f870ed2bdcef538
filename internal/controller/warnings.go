package controller

import (
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

// warned is one set's warnings by signature, with when each was last
// planned: the warnings memory (Controller.warnings) holds one per set.
type warned map[string]time.Time

// freshWarnings returns the warnings to report now: those not planned for
// the set within warningQuiet. It records all of them, in the set's
// memory, as planned at now, so an odd object produces one Warning event
// while it lasts, not one per sync.
func freshWarnings(mem *perSet[warned], key string, warnings []planner.Warning, now time.Time) []planner.Warning {
	var out []planner.Warning
	mem.update(key, func(w *warned) {
		if *w == nil {
			*w = warned{}
		}
		for _, x := range warnings {
			sig := x.Reason + "|" + x.Object + "|" + x.Message + "|" + x.Event
			if last, ok := (*w)[sig]; !ok || now.Sub(last) > warningQuiet {
				out = append(out, x)
			}
			(*w)[sig] = now
		}
		for sig, last := range *w {
			if now.Sub(last) > warningQuiet {
				delete(*w, sig)
			}
		}
	})
	return out
}

func (c *Controller) reportWarnings(key string, set *appsv1.StatefulSet, warnings []planner.Warning) {
	for _, x := range freshWarnings(c.warnings, key, warnings, c.now()) {
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
