package forecast

import (
	"sort"
	"strings"
	"time"
)

// PlanSample is what the planner said of the rollout At after the
// change: whether it had something to do (Acting), and what it waited
// for.
type PlanSample struct {
	At     time.Duration
	Acting bool
	Waits  []WaitSample
}

// WaitSample is one thing the plan waited for: a pod, and the policy
// that waits, in the planner's words.
type WaitSample struct {
	Pod string
	Why string
}

// minWait is the shortest wait a forecast reports: shorter ones are the
// controller's own reaction between two samples, not a wait.
const minWait = 500 * time.Millisecond

// Waits joins the samples in which the plan had nothing to do but wait
// into spans, one per pod and category, in order of start; a span ends
// at the first sample that no longer waits for it, or at end. The first
// sample's words say why.
func Waits(samples []PlanSample, end time.Duration) []Wait {
	type key struct{ pod, category string }
	open := map[key]*Wait{}
	var order []key
	var out []Wait
	closeAt := func(k key, at time.Duration) {
		w := open[k]
		w.To = Seconds(at)
		if w.To.D()-w.From.D() >= minWait {
			out = append(out, *w)
		}
		delete(open, k)
	}
	for _, s := range samples {
		seen := map[key]bool{}
		if !s.Acting {
			for _, w := range s.Waits {
				k := key{w.Pod, Category(w.Why)}
				seen[k] = true
				if open[k] == nil {
					open[k] = &Wait{From: Seconds(s.At), Pod: w.Pod, Category: k.category, Why: w.Why}
					order = append(order, k)
				}
			}
		}
		for _, k := range order {
			if open[k] != nil && !seen[k] {
				closeAt(k, s.At)
			}
		}
	}
	for _, k := range order {
		if open[k] != nil {
			closeAt(k, end)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}

// categories map the planner's words for a wait to its kind, first match
// first: the gates a person asks about before a rollout (budgets,
// quorum, hooks, zones) before the plain ones (shutdown, availability,
// readiness).
var categories = []struct{ marker, category string }{
	{"respectDisruptionBudgets", "disruption budget"},
	{"quorum:", "quorum"},
	{"switchover", "switchover"},
	{" hook ", "hook"},
	{"RollingUpdate topology", "zone"},
	{"rollout group", "rollout group"},
	{"rolloutGroup", "rollout group"},
	{"Recreate:", "recreate"},
	{"in-place update", "in place"},
	{"claim", "storage"},
	{"terminating", "shutdown"},
	{"is gone", "shutdown"},
	{"maxUnavailable", "maxUnavailable"},
	{"Ready for", "available"},
	{"Ready", "readiness"},
}

// Category is the kind of a wait, from the planner's words.
func Category(why string) string {
	for _, c := range categories {
		if strings.Contains(why, c.marker) {
			return c.category
		}
	}
	return "other"
}
