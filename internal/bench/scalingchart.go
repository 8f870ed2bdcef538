package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Scaling chart geometry, in SVG user units: panels side by side.
const (
	scalePanelWidth  = 360
	scalePanelHeight = 220
	scaleMarginLeft  = 50
	scaleMarginTop   = 50
	scaleGap         = 70
)

// scalePanel is one quantity drawn against the number of pods.
type scalePanel struct {
	title string
	value func(Result) (float64, bool)
}

var scalePanels = []scalePanel{
	{"CPU ms per pod event (create and roll)", func(r Result) (float64, bool) { return r.CPUPerPodEventMs, r.CPUPerPodEventMs > 0 }},
	{"Peak RSS, MiB (create and roll)", func(r Result) (float64, bool) { return float64(r.PeakRSSBytes) / (1 << 20), r.PeakRSSBytes > 0 }},
	{"Restart to first action, s", func(r Result) (float64, bool) {
		if r.Restart == nil {
			return 0, false
		}
		return r.Restart.FirstActionSeconds, true
	}},
}

// podsOf reads the total pod count from a size such as "1×5000" or
// "1000×2".
func podsOf(size string) (int, bool) {
	a, b, ok := strings.Cut(size, "×")
	if !ok {
		return 0, false
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || x*y <= 0 {
		return 0, false
	}
	return x * y, true
}

// WriteScalingSVG draws the scaling scenarios' results as lines, one per
// scenario and contender, against the number of pods on a log scale: CPU
// per pod event, peak RSS and the restart's first action.
func WriteScalingSVG(w io.Writer, results []Result) error {
	type point struct {
		pods  int
		value Result
	}
	lines := map[string][]point{}
	minPods, maxPods := math.MaxInt, 0
	for _, r := range results {
		if r.Error != "" || (r.Scenario != ScenarioScaling && r.Scenario != ScenarioScalingSets) {
			continue
		}
		n, ok := podsOf(r.Size)
		if !ok {
			continue
		}
		key := r.Scenario + " " + r.Contender
		lines[key] = append(lines[key], point{n, r})
		minPods, maxPods = min(minPods, n), max(maxPods, n)
	}
	if len(lines) == 0 {
		return fmt.Errorf("no scaling results to draw")
	}
	keys := make([]string, 0, len(lines))
	for k, pts := range lines {
		keys = append(keys, k)
		sort.Slice(pts, func(i, j int) bool { return pts[i].pods < pts[j].pods })
	}
	sort.Strings(keys)
	lo, hi := math.Log10(float64(minPods)/1.3), math.Log10(float64(maxPods)*1.3)
	xOf := func(p int) float64 { return scalePanelWidth * (math.Log10(float64(p)) - lo) / (hi - lo) }
	var body strings.Builder
	for i, panel := range scalePanels {
		top := 0.0
		for _, pts := range lines {
			for _, p := range pts {
				if v, ok := panel.value(p.value); ok {
					top = math.Max(top, v)
				}
			}
		}
		if top == 0 {
			continue
		}
		top *= 1.15
		ox := float64(scaleMarginLeft + i*(scalePanelWidth+scaleGap))
		fmt.Fprintf(&body, `<g transform="translate(%.0f,%d)">`+"\n", ox, scaleMarginTop)
		fmt.Fprintf(&body, `<text x="0" y="-12" font-weight="bold">%s</text>`+"\n", html.EscapeString(panel.title))
		fmt.Fprintf(&body, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#000"/><line x1="0" y1="0" x2="0" y2="%d" stroke="#000"/>`+"\n",
			scalePanelHeight, scalePanelWidth, scalePanelHeight, scalePanelHeight)
		fmt.Fprintf(&body, `<text x="-4" y="4" text-anchor="end">%.3g</text><text x="-4" y="%d" text-anchor="end">0</text>`+"\n", top, scalePanelHeight)
		for _, k := range keys {
			pts := lines[k]
			contender := k[strings.LastIndexByte(k, ' ')+1:]
			dash := ""
			if strings.HasPrefix(k, ScenarioScalingSets+" ") {
				dash = ` stroke-dasharray="5,3"`
			}
			var path []string
			for _, p := range pts {
				v, ok := panel.value(p.value)
				if !ok {
					continue
				}
				x, y := xOf(p.pods), scalePanelHeight*(1-v/top)
				path = append(path, fmt.Sprintf("%.1f,%.1f", x, y))
				fmt.Fprintf(&body, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/><text x="%.1f" y="%.1f" font-size="9">%.3g</text>`+"\n",
					x, y, colour(contender), x+4, y-4, v)
			}
			fmt.Fprintf(&body, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>`+"\n", strings.Join(path, " "), colour(contender), dash)
		}
		var ticks []int
		for _, pts := range lines {
			for _, p := range pts {
				ticks = append(ticks, p.pods)
			}
		}
		slices.Sort(ticks)
		for _, p := range slices.Compact(ticks) {
			fmt.Fprintf(&body, `<text x="%.1f" y="%d" text-anchor="middle" font-size="9">%d</text>`+"\n", xOf(p), scalePanelHeight+14, p)
		}
		fmt.Fprintf(&body, `<text x="%d" y="%d" text-anchor="middle">pods (log scale)</text>`+"\n", scalePanelWidth/2, scalePanelHeight+30)
		body.WriteString("</g>\n")
	}
	width := scaleMarginLeft + len(scalePanels)*(scalePanelWidth+scaleGap)
	legendY := scaleMarginTop + scalePanelHeight + 50
	var legend strings.Builder
	for i, k := range keys {
		contender := k[strings.LastIndexByte(k, ' ')+1:]
		dash := ""
		if strings.HasPrefix(k, ScenarioScalingSets+" ") {
			dash = ` stroke-dasharray="5,3"`
		}
		x := scaleMarginLeft + i*260
		fmt.Fprintf(&legend, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5"%s/><text x="%d" y="%d">%s</text>`+"\n",
			x, legendY, x+24, legendY, colour(contender), dash, x+30, legendY+4, html.EscapeString(k))
	}
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">
<text x="10" y="18" font-size="13" font-weight="bold">Scaling: one set of N pods (solid) and sets of a few pods, N in all (dashed)</text>
%s%s</svg>
`, width, legendY+20, body.String(), legend.String())
	return err
}
