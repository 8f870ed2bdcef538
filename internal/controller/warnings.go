package controller

import (
	"sort"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// warningMemory remembers which warnings a set was last given, so an odd
// object produces one Warning event when it appears, not one per sync.
type warningMemory struct {
	mu   sync.Mutex
	last map[string]string
}

func newWarningMemory() *warningMemory { return &warningMemory{last: map[string]string{}} }

func (w *warningMemory) changed(key string, warnings []planner.Warning) bool {
	parts := make([]string, 0, len(warnings))
	for _, x := range warnings {
		parts = append(parts, x.Reason+"|"+x.Object+"|"+x.Message+"|"+x.Event)
	}
	sort.Strings(parts)
	sig := strings.Join(parts, "\n")
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last[key] == sig {
		return false
	}
	w.last[key] = sig
	return true
}

func (w *warningMemory) forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.last, key)
}

func (c *Controller) reportWarnings(key string, set *appsv1.StatefulSet, warnings []planner.Warning) {
	if !c.warned.changed(key, warnings) {
		return
	}
	for _, x := range warnings {
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
