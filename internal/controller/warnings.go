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

// freshWarnings returns the warnings to report now: those not planned for
// the set within warningQuiet. It records all of them, in the set's state,
// as planned at now, so an odd object produces one Warning event while it
// lasts, not one per sync.
func freshWarnings(states *setStates, key string, warnings []planner.Warning, now time.Time) []planner.Warning {
	var out []planner.Warning
	states.update(key, func(st *setState) {
		if st.warnings == nil {
			st.warnings = map[string]time.Time{}
		}
		for _, x := range warnings {
			sig := x.Reason + "|" + x.Object + "|" + x.Message + "|" + x.Event
			if last, ok := st.warnings[sig]; !ok || now.Sub(last) > warningQuiet {
				out = append(out, x)
			}
			st.warnings[sig] = now
		}
		for sig, last := range st.warnings {
			if now.Sub(last) > warningQuiet {
				delete(st.warnings, sig)
			}
		}
	})
	return out
}

func (c *Controller) reportWarnings(key string, set *appsv1.StatefulSet, warnings []planner.Warning) {
	for _, x := range freshWarnings(c.states, key, warnings, c.now()) {
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
