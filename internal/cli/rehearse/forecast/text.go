package forecast

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// WriteText writes the forecast for a person: the set and the change,
// what was learned, one line per controller, their waits, budgets and
// notable events, and the verdict.
func WriteText(w io.Writer, f Forecast) error {
	p := &printer{w: w}
	p.header(f)
	p.learned(f)
	p.runs(f)
	for _, r := range f.Runs {
		p.details(r)
	}
	for _, n := range f.Notes {
		p.f("note: %s\n", n)
	}
	p.f("\nVerdict: %s\n", f.Verdict)
	return p.err
}

// printer writes formatted lines and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) table(write func(tw io.Writer)) {
	if p.err != nil {
		return
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	write(tw)
	p.err = tw.Flush()
}

func (p *printer) header(f Forecast) {
	s := f.Set
	p.f("Rehearsal of %s/%s in %s", s.Kind, s.Name, s.Namespace)
	if s.Context != "" {
		p.f(" (context %s)", s.Context)
	}
	p.f(": %d pods, %s, %s", s.Replicas, s.PodManagementPolicy, s.Strategy)
	if s.ServerVersion != "" {
		p.f(", Kubernetes %s", s.ServerVersion)
	}
	p.f("\n")
	for _, c := range f.Change {
		p.f("  change: %s\n", c)
	}
	if f.NewRevisionFails != "" {
		p.f("  the new revision's pods: %s (sim.ordinal.dev/behavior=%s)\n", failWords(f.NewRevisionFails), f.NewRevisionFails)
	}
	p.f("  read from the source: %s\n", requestWords(f.Source))
}

// requestWords is "12 requests (get 3, list 9), no writes".
func requestWords(r Requests) string {
	verbs := make([]string, 0, len(r.ByVerb))
	for v := range r.ByVerb {
		verbs = append(verbs, v)
	}
	sort.Strings(verbs)
	parts := make([]string, len(verbs))
	for i, v := range verbs {
		parts[i] = fmt.Sprintf("%s %d", v, r.ByVerb[v])
	}
	writes := "no writes"
	if r.Writes > 0 {
		writes = fmt.Sprintf("%d WRITES", r.Writes)
	}
	return fmt.Sprintf("%d requests (%s), %s", r.Reads+r.Writes, strings.Join(parts, ", "), writes)
}

func (p *printer) learned(f Forecast) {
	l := f.Learned
	p.f("\nLearned timings (start-up: scheduled to Ready; shutdown: delete to gone)\n")
	p.table(func(tw io.Writer) {
		fmt.Fprintln(tw, "  pod\tstart-up\tfrom\tshutdown\tfrom\trestarts")
		for _, pod := range l.Pods {
			state := ""
			if pod.State != "" {
				state = "\tnot Ready: " + pod.State
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d%s\n", pod.Name, pod.StartUp, pod.StartUpFrom, pod.Shutdown, pod.ShutdownFrom, pod.Restarts, state)
		}
		fmt.Fprintf(tw, "  (new)\t%s\t%s\t%s\t%s\n", l.StartUp, l.StartUpFrom, l.Shutdown, l.ShutdownFrom)
	})
	for _, n := range l.Notes {
		p.f("  note: %s\n", n)
	}
}

func (p *printer) runs(f Forecast) {
	p.f("\n")
	p.table(func(tw io.Writer) {
		fmt.Fprintln(tw, "controller\tkind\toutcome\ttime\tmin Ready\tmin Available\twaits\twrites")
		for _, r := range f.Runs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%d/%d\t%d\t%d\n", r.Controller, r.Kind, r.Outcome, r.Seconds,
				r.MinReady, r.Replicas, r.MinAvailable, r.Replicas, len(r.Waits), r.WritesTotal)
		}
	})
}

// details lists a run's waits by category, its budgets, where it stuck,
// its notable events and its writes.
func (p *printer) details(r Run) {
	p.f("\n%s:\n", r.Controller)
	for _, c := range waitSummary(r.Waits) {
		p.f("  waited for %-17s %d× over %s  (e.g. %s: %s)\n", c.category, c.count, c.total, c.first.Pod, c.first.Why)
	}
	for _, b := range r.Budgets {
		verdict := "kept"
		if !b.Kept() {
			verdict = fmt.Sprintf("BROKEN for %s", b.Below)
		}
		p.f("  PodDisruptionBudget %s (needs %d Ready): %s, %d Ready at worst\n", b.Name, b.Needs, verdict, b.MinHealthy)
	}
	if r.StuckAt != nil {
		p.f("  stuck at %s since %s: %s\n", r.StuckAt.Pod, r.StuckAt.From, r.StuckAt.Why)
	}
	for _, e := range r.Events {
		p.f("  event at %s: %s: %s\n", e.At, e.Reason, e.Message)
	}
	parts := make([]string, len(r.Writes))
	for i, w := range r.Writes {
		parts[i] = fmt.Sprintf("%s %s %d", w.Verb, w.Resource, w.Count)
	}
	p.f("  writes: %d (%s)\n", r.WritesTotal, strings.Join(parts, ", "))
	for _, n := range r.Notes {
		p.f("  note: %s\n", n)
	}
}

// waitCategory sums a run's waits of one category: how many, and the
// time at least one of them went on (waits for two pods at once count
// once).
type waitCategory struct {
	category string
	count    int
	total    Seconds
	first    Wait
}

func waitSummary(waits []Wait) []waitCategory {
	var out []waitCategory
	index := map[string]int{}
	spans := map[string][]Wait{}
	for _, w := range waits {
		i, ok := index[w.Category]
		if !ok {
			i = len(out)
			index[w.Category] = i
			out = append(out, waitCategory{category: w.Category, first: w})
		}
		out[i].count++
		spans[w.Category] = append(spans[w.Category], w)
	}
	for i := range out {
		out[i].total = union(spans[out[i].category])
	}
	return out
}

// union is how long at least one of the waits (sorted by start) went on.
func union(ws []Wait) Seconds {
	var total, end Seconds
	for _, w := range ws {
		from := max(w.From, end)
		if w.To > from {
			total += w.To - from
		}
		end = max(end, w.To)
	}
	return total
}
