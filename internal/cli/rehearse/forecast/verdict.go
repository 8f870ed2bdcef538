package forecast

import (
	"fmt"
	"strings"
)

// Verdict is one line a person can paste into a change ticket: the set,
// the change and, per controller, how the rollout ends, how long it takes
// and how few pods stay Ready, and any budget it breaks.
func Verdict(f Forecast) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d pods) in %s", f.Set.Kind+"/"+f.Set.Name, f.Set.Replicas, f.Set.Namespace)
	if len(f.Change) > 0 {
		fmt.Fprintf(&b, ", %s", strings.Join(f.Change, ", "))
	}
	if f.NewRevisionFails != "" {
		fmt.Fprintf(&b, ", new revision %s", failWords(f.NewRevisionFails))
	}
	b.WriteString(": ")
	for i, r := range f.Runs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(runVerdict(r))
	}
	b.WriteString(".")
	return b.String()
}

// runVerdict is one controller's part of the verdict.
func runVerdict(r Run) string {
	var s string
	switch r.Outcome {
	case Completed:
		s = fmt.Sprintf("%s completes in %s", r.Controller, r.Seconds)
	case RolledBack:
		s = fmt.Sprintf("%s rolls back on its own, done in %s", r.Controller, r.Seconds)
	case Paused:
		s = fmt.Sprintf("%s pauses the rollout after %s", r.Controller, r.Seconds)
	case Stuck:
		s = fmt.Sprintf("%s is stuck after %s", r.Controller, r.Seconds)
		if r.StuckAt != nil {
			s = fmt.Sprintf("%s is stuck at %s after %s (%s) until someone acts", r.Controller, r.StuckAt.Pod, r.Seconds, r.StuckAt.Category)
		}
	case TimedOut:
		s = fmt.Sprintf("%s is not done after %s", r.Controller, r.Seconds)
	case NoChange:
		return fmt.Sprintf("%s has nothing to roll out (no new revision)", r.Controller)
	}
	s += fmt.Sprintf(", %d of %d Ready at worst", r.MinReady, r.Replicas)
	if r.MinAvailable != r.MinReady {
		s += fmt.Sprintf(" (%d Available)", r.MinAvailable)
	}
	for _, bud := range r.Budgets {
		if !bud.Kept() {
			s += fmt.Sprintf(", breaks PodDisruptionBudget %s for %s (%d Ready, it needs %d)", bud.Name, bud.Below, bud.MinHealthy, bud.Needs)
		}
	}
	return s
}

// failWords says what the new revision's pods do, as a phrase.
func failWords(behavior string) string {
	switch behavior {
	case "never-ready":
		return "never Ready"
	case "crash-loop":
		return "crash-looping"
	case "fail":
		return "failing"
	case "image-pull-error":
		return "with an image that cannot be pulled"
	}
	return behavior
}
