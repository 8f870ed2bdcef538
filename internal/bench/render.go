package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// WriteJSON prints one JSON object per line per result.
func WriteJSON(w io.Writer, results []Result) error {
	enc := json.NewEncoder(w)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("encoding result %s/%s: %w", r.Scenario, r.Contender, err)
		}
	}
	return nil
}

// ReadJSON reads what WriteJSON wrote.
func ReadJSON(r io.Reader) ([]Result, error) {
	dec := json.NewDecoder(r)
	var out []Result
	for dec.More() {
		var res Result
		if err := dec.Decode(&res); err != nil {
			return nil, fmt.Errorf("decoding results: %w", err)
		}
		out = append(out, res)
	}
	return out, nil
}

// QPSLabel renders a QPS/burst pair; QPS 0 is unthrottled.
func QPSLabel(qps float32, burst int) string {
	if qps == 0 {
		return "unthrottled"
	}
	return fmt.Sprintf("%g/%d", qps, burst)
}

// WriteTable prints a Markdown table, each row with its ratio to the floor
// of the same scenario and client limits.
func WriteTable(w io.Writer, results []Result) error {
	floors := floorOf(results)
	rows := append([]Result(nil), results...)
	sortResults(rows)
	var b strings.Builder
	b.WriteString("| scenario | size | qps/burst | contender | seconds | × floor | last pod write s | × floor | API writes | writes/new pod | event writes | CPU s | CPU s/min | peak RSS MiB | peak anon MiB | reaction p50/p99 ms | status lag mean/max (wait) | note |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rows {
		f, hasFloor := floors[group{r.Scenario, r.QPS}]
		ratio, wratio := "–", "–"
		if hasFloor && r.Error == "" {
			ratio = fmtRatio(Ratio(r.Seconds, f.Seconds))
			wratio = fmtRatio(Ratio(r.LastWriteSeconds, f.LastWriteSeconds))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %d | %.2f | %s | %.1f | %.1f | %s | %s | %s |\n",
			r.Scenario, r.Size, QPSLabel(r.QPS, r.Burst), r.Contender, fmtSeconds(r), ratio, fmtOpt(r.LastWriteSeconds, "%.1f"), wratio,
			r.APIWrites, fmtOpt(r.WritesPerNewPod, "%.2f"), r.EventWrites, r.CPUSeconds,
			fmtOpt(r.CPUPerMinute, "%.3f"), float64(r.PeakRSSBytes)/(1<<20), float64(r.PeakAnonBytes)/(1<<20), fmtReaction(r), fmtLag(r), note(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sortResults(rs []Result) {
	order := map[string]int{}
	for i, s := range ScenarioNames {
		order[s] = i
	}
	corder := map[string]int{}
	for i, c := range ContenderNames {
		corder[c] = i
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Scenario != b.Scenario {
			return order[a.Scenario] < order[b.Scenario]
		}
		if a.QPS != b.QPS {
			return qpsOrder(a.QPS) < qpsOrder(b.QPS)
		}
		return corder[a.Contender] < corder[b.Contender]
	})
}

// qpsOrder puts throttled settings first, unthrottled last.
func qpsOrder(q float32) float64 {
	if q == 0 {
		return math.Inf(1)
	}
	return float64(q)
}

func fmtSeconds(r Result) string {
	if r.Error != "" {
		return "failed"
	}
	return fmt.Sprintf("%.1f", r.Seconds)
}

func fmtRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

func fmtOpt(x float64, format string) string {
	if x == 0 {
		return "–"
	}
	return fmt.Sprintf(format, x)
}

func fmtReaction(r Result) string {
	if r.ReactionP50Ms == nil || r.ReactionP99Ms == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f / %.1f", *r.ReactionP50Ms, *r.ReactionP99Ms)
}

// fmtLag renders the status lag: its time-weighted mean and its largest
// value, in pods, and the mean time a readiness change waited to be
// counted.
func fmtLag(r Result) string {
	if r.StatusLagMean == nil || r.StatusLagMax == nil {
		return "–"
	}
	lag := fmt.Sprintf("%.1f / %d", *r.StatusLagMean, *r.StatusLagMax)
	if r.StatusWaitMs != nil {
		lag += fmt.Sprintf(" (%.0f ms)", *r.StatusWaitMs)
	}
	return lag
}

func note(r Result) string {
	var parts []string
	if r.Error != "" {
		parts = append(parts, strings.ReplaceAll(r.Error, "|", "/"))
	}
	if r.APIWriteErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d failed writes", r.APIWriteErrors))
	}
	if r.Scenario == ScenarioSteady && r.QuietWaitSeconds >= 1 {
		parts = append(parts, fmt.Sprintf("idle after %.0fs of event backlog", r.QuietWaitSeconds))
	}
	if d := r.Drain; d != nil {
		parts = append(parts, fmt.Sprintf("fewest Ready members of one set %d; the drain evicted %d (%d refused)", d.FewestReady, d.Evicted, d.Refused))
		if d.MovedSeconds > 0 {
			parts = append(parts, fmt.Sprintf("moved off the cordoned node in %.1fs", d.MovedSeconds))
		}
	}
	if r.Load != "" {
		parts = append(parts, "load "+r.Load)
	}
	if r.SelfCountedWrites != nil && *r.SelfCountedWrites != r.APIWrites {
		parts = append(parts, fmt.Sprintf("self-counted %d", *r.SelfCountedWrites))
	}
	return strings.Join(parts, "; ")
}

// WriteScalingTable prints, for the results that restarted the contender
// (the scaling scenarios), the cost per pod event and the restart times;
// it prints nothing if there are none.
func WriteScalingTable(w io.Writer, results []Result) error {
	var rows []Result
	for _, r := range results {
		if r.Restart != nil || (r.Error != "" && (r.Scenario == ScenarioScaling || r.Scenario == ScenarioScalingSets)) {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	sortResults(rows)
	groupOf := map[group]int{} // sortResults' order of (scenario, limit)
	for _, r := range rows {
		if _, ok := groupOf[group{r.Scenario, r.QPS}]; !ok {
			groupOf[group{r.Scenario, r.QPS}] = len(groupOf)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { // a curve: by size within each group
		ga, gb := groupOf[group{rows[i].Scenario, rows[i].QPS}], groupOf[group{rows[j].Scenario, rows[j].QPS}]
		if ga != gb {
			return ga < gb
		}
		pa, _ := podsOf(rows[i].Size)
		pb, _ := podsOf(rows[j].Size)
		return pa < pb
	})
	var b strings.Builder
	b.WriteString("\n| scenario | size | qps/burst | contender | create + roll s | pod events | CPU s | CPU ms / pod event | peak RSS MiB | restart: pod list s | first action s | converged s | rest s | CPU s | peak RSS MiB | note |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range rows {
		list, first, conv, rest, cpu, rss := "–", "–", "–", "–", "–", "–"
		if x := r.Restart; x != nil {
			list = fmtOpt(x.PodListSeconds, "%.2f")
			first, conv = fmt.Sprintf("%.2f", x.FirstActionSeconds), fmt.Sprintf("%.1f", x.ConvergedSeconds)
			rest, cpu = fmt.Sprintf("%.1f", x.RestSeconds), fmt.Sprintf("%.2f", x.CPUSeconds)
			rss = fmt.Sprintf("%.1f", float64(x.PeakRSSBytes)/(1<<20))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %.2f | %s | %.1f | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Scenario, r.Size, QPSLabel(r.QPS, r.Burst), r.Contender, fmtSeconds(r), r.PodEvents, r.CPUSeconds,
			fmtOpt(r.CPUPerPodEventMs, "%.3f"), float64(r.PeakRSSBytes)/(1<<20), list, first, conv, rest, cpu, rss, note(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
