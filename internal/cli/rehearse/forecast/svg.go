package forecast

import (
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// The picture's geometry, in pixels.
const (
	svgWidth    = 960
	svgLeft     = 120 // labels
	svgRight    = 24
	rowHeight   = 14
	rowGap      = 4
	countHeight = 36
	panelGap    = 26
)

// palette are the dashboard's revision colours (style.css --r0…--r7): the
// revision a run starts from is the first, the one the change makes the
// second.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#e15759", "#9c755f", "#bab0ac"}

// waitColours colour the waits' strip by category; the gates a person
// asks about before a rollout (budgets, quorum, hooks, zones) stand out,
// the plain waits are grey.
var waitColours = map[string]string{
	"disruption budget": "#cf222e", "quorum": "#8250df", "hook": "#9a6700", "switchover": "#8250df",
	"zone": "#0969da", "rollout group": "#0969da", "maxUnavailable": "#6a6f78", "shutdown": "#c4c9d0",
}

// SVG draws the forecast: per controller, a row per ordinal whose spans
// are coloured by revision (pale while starting, faint and dashed while
// terminating, nothing while no pod exists), a strip of the waits (their
// reasons in the tooltips), and the count of Ready pods over time, all
// on one time axis so the runs compare at a glance.
func SVG(f Forecast) string {
	scale := timeScale(f.Runs)
	var body strings.Builder
	y := 68
	for _, r := range f.Runs {
		y = panel(&body, r, scale, y) + panelGap
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="system-ui, sans-serif" font-size="11">`+"\n", svgWidth, y)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", svgWidth, y)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title(f)))
	legend(&b)
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
	return b.String()
}

func title(f Forecast) string {
	t := fmt.Sprintf("Rehearsal of %s/%s in %s", f.Set.Kind, f.Set.Name, f.Set.Namespace)
	if len(f.Change) > 0 {
		t += ": " + strings.Join(f.Change, ", ")
	}
	if f.NewRevisionFails != "" {
		t += " (new revision " + failWords(f.NewRevisionFails) + ")"
	}
	return t
}

func legend(b *strings.Builder) {
	x := 10
	item := func(swatch, label string) {
		fmt.Fprintf(b, `%s<text x="%d" y="43">%s</text>`+"\n", strings.ReplaceAll(swatch, "X", fmt.Sprint(x)), x+16, label)
		x += 16 + 7*len(label) + 14
	}
	item(`<rect x="X" y="34" width="12" height="12" fill="`+palette[0]+`"/>`, "revision before, Ready")
	item(`<rect x="X" y="34" width="12" height="12" fill="`+palette[1]+`"/>`, "new revision, Ready")
	item(`<rect x="X" y="34" width="12" height="12" fill="`+pale(palette[1])+`" stroke="`+palette[1]+`"/>`, "starting")
	item(`<rect x="X" y="34" width="12" height="12" fill="`+palette[0]+`" fill-opacity="0.35" stroke="#333" stroke-dasharray="2,2"/>`, "terminating")
	item(`<rect x="X" y="38" width="12" height="5" fill="#8c959f"/>`, "waiting")
}

// axis maps seconds to x.
type axis struct {
	seconds float64
	perSec  float64
}

func (a axis) x(s Seconds) float64 { return svgLeft + s.D().Seconds()*a.perSec }

// timeScale fits the longest run into the plot's width.
func timeScale(runs []Run) axis {
	longest := 1.0
	for _, r := range runs {
		longest = math.Max(longest, runEnd(r).D().Seconds())
	}
	longest = niceCeil(longest)
	return axis{seconds: longest, perSec: float64(svgWidth-svgLeft-svgRight) / longest}
}

// runEnd is the end of a run's last segment, or its time.
func runEnd(r Run) Seconds {
	end := r.Seconds
	for _, t := range r.Pods {
		for _, s := range t.Segments {
			end = max(end, s.To)
		}
	}
	return end
}

// tickStep is a round step giving at most ten ticks over seconds.
func tickStep(seconds float64) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600} {
		if seconds/s <= 10 {
			return s
		}
	}
	return 7200
}

func niceCeil(seconds float64) float64 {
	step := tickStep(seconds)
	return math.Ceil(seconds/step) * step
}

// panel draws one run from y down and returns the y below it.
func panel(b *strings.Builder, r Run, a axis, y int) int {
	fmt.Fprintf(b, `<text x="10" y="%d" font-size="12" font-weight="bold">%s</text>`+"\n", y, esc(runTitle(r)))
	y += 8
	colour := revisionColours(r)
	for _, t := range r.Pods {
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", svgLeft-6, y+rowHeight-3, esc(t.Pod))
		for _, s := range t.Segments {
			segment(b, s, colour(s.Revision), a, y)
		}
		y += rowHeight + rowGap
	}
	y = waitStrip(b, r, a, y)
	y = readyChart(b, r, a, y)
	return ticks(b, a, y)
}

func runTitle(r Run) string {
	t := fmt.Sprintf("%s (%s): %s in %s · fewest Ready %d/%d", r.Controller, r.Kind, r.Outcome, r.Seconds, r.MinReady, r.Replicas)
	if r.MinAvailable != r.MinReady {
		t += fmt.Sprintf(", Available %d/%d", r.MinAvailable, r.Replicas)
	}
	return t + fmt.Sprintf(" · %d writes", r.WritesTotal)
}

// revisionColours gives the run's start revision the first colour, its
// new revision the second, any other the next free one.
func revisionColours(r Run) func(string) string {
	known := map[string]string{r.From: palette[0]}
	if r.To != "" {
		known[r.To] = palette[1]
	}
	next := 2
	return func(rev string) string {
		if c, ok := known[rev]; ok {
			return c
		}
		c := palette[next%len(palette)]
		next++
		known[rev] = c
		return c
	}
}

func segment(b *strings.Builder, s Segment, colour string, a axis, y int) {
	x, w := a.x(s.From), math.Max(1, a.x(s.To)-a.x(s.From))
	attrs := fmt.Sprintf(`fill="%s"`, colour)
	switch s.State {
	case Starting:
		attrs = fmt.Sprintf(`fill="%s" stroke="%s"`, pale(colour), colour)
	case Terminating:
		attrs = fmt.Sprintf(`fill="%s" fill-opacity="0.35" stroke="#333" stroke-dasharray="2,2"`, colour)
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" %s><title>%s %s %s–%s</title></rect>`+"\n",
		x, y, w, rowHeight, attrs, esc(s.Revision), s.State, s.From, s.To)
}

// waitStrip draws the waits as bars on one row, their reasons in the
// tooltips.
func waitStrip(b *strings.Builder, r Run, a axis, y int) int {
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end" fill="#6a6f78">waits</text>`+"\n", svgLeft-6, y+9)
	for _, w := range r.Waits {
		c, ok := waitColours[w.Category]
		if !ok {
			c = "#8c959f"
		}
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="6" fill="%s"><title>%s %s–%s: %s</title></rect>`+"\n",
			a.x(w.From), y+3, math.Max(1, a.x(w.To)-a.x(w.From)), c, esc(w.Category), w.From, w.To, esc(w.Pod+": "+w.Why))
	}
	return y + 14
}

// readyChart draws the Ready count as a step line over the run, with the
// strictest budget's need dashed.
func readyChart(b *strings.Builder, r Run, a axis, y int) int {
	top, bottom := float64(y+4), float64(y+countHeight)
	level := func(n int) float64 {
		if r.Replicas == 0 {
			return bottom
		}
		return bottom - (bottom-top)*float64(n)/float64(r.Replicas)
	}
	fmt.Fprintf(b, `<text x="%d" y="%.0f" text-anchor="end" fill="#6a6f78">Ready</text>`+"\n", svgLeft-22, bottom-8)
	fmt.Fprintf(b, `<text x="%d" y="%.0f" text-anchor="end" fill="#6a6f78">%d</text><text x="%d" y="%.0f" text-anchor="end" fill="#6a6f78">0</text>`+"\n",
		svgLeft-4, top+4, r.Replicas, svgLeft-4, bottom)
	fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#d9dce1"/>`+"\n", svgLeft, bottom, svgWidth-svgRight, bottom)
	var pts []string
	counts := Counts(r.Pods, time.Duration(r.MinReadySeconds)*time.Second)
	end := runEnd(r)
	for i, c := range counts {
		if i > 0 && c.At >= end {
			break
		}
		if i > 0 {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", a.x(c.At), level(counts[i-1].Ready)))
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", a.x(c.At), level(c.Ready)))
	}
	if n := len(counts); n > 0 {
		last := counts[0]
		for _, c := range counts {
			if c.At < end {
				last = c
			}
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", a.x(end), level(last.Ready)))
	}
	if len(pts) > 0 {
		fmt.Fprintf(b, `<polyline fill="none" stroke="#1a7f37" stroke-width="1.5" points="%s"/>`+"\n", strings.Join(pts, " "))
	}
	needs := 0
	for _, bud := range r.Budgets {
		needs = max(needs, bud.Needs)
	}
	if needs > 0 {
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#cf222e" stroke-dasharray="4,3"><title>PodDisruptionBudget: %d Ready</title></line>`+"\n",
			svgLeft, level(needs), svgWidth-svgRight, level(needs), needs)
	}
	return y + countHeight + 4
}

// ticks draws the time axis under a panel.
func ticks(b *strings.Builder, a axis, y int) int {
	step := tickStep(a.seconds)
	for s := 0.0; s <= a.seconds+1e-9; s += step {
		x := svgLeft + s*a.perSec
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#8c959f"/><text x="%.1f" y="%d" text-anchor="middle" fill="#6a6f78">%gs</text>`+"\n",
			x, y, x, y+4, x, y+15, s)
	}
	return y + 18
}

// pale is colour mixed 35% with white, the dashboard's starting cell.
func pale(colour string) string {
	var r, g, bl int
	if _, err := fmt.Sscanf(colour, "#%02x%02x%02x", &r, &g, &bl); err != nil {
		return colour
	}
	mix := func(c int) int { return int(math.Round(float64(c)*0.35 + 255*0.65)) }
	return fmt.Sprintf("#%02x%02x%02x", mix(r), mix(g), mix(bl))
}

func esc(s string) string { return html.EscapeString(s) }
