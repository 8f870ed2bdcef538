package controller

import (
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// warningsChanged reports whether warnings differ from the ones the set
// was last given, and remembers them in its state, so an odd object
// produces one Warning event when it appears, not one per sync.
func warningsChanged(states *setStates, key string, warnings []planner.Warning) bool {
	parts := make([]string, 0, len(warnings))
	for _, x := range warnings {
		parts = append(parts, x.Reason+"|"+x.Object+"|"+x.Message)
	}
	sort.Strings(parts)
	sig := strings.Join(parts, "\n")
	changed := false
	states.update(key, func(st *setState) {
		changed = st.warnings != sig
		st.warnings = sig
	})
	return changed
}

func (c *Controller) reportWarnings(key string, set *appsv1.StatefulSet, warnings []planner.Warning) {
	if !warningsChanged(c.states, key, warnings) {
		return
	}
	for _, x := range warnings {
		c.recorder.Eventf(set, corev1.EventTypeWarning, x.Reason, "%s: %s", x.Object, x.Message)
	}
}

func (c *Controller) warnOnce(key string, set *appsv1.StatefulSet, x planner.Warning) {
	c.reportWarnings(key, set, []planner.Warning{x})
}
