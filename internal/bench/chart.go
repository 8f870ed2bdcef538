package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartLabelWidth = 260
	chartBarMax     = 420
	chartRowHeight  = 16
	chartGroupGap   = 10
	chartTop        = 40
	chartMaxRatio   = 4.0
)

var contenderColours = map[string]string{
	ContenderOrdinal: "#2b6cb0", ContenderOrdinalExtended: "#4299e1", ContenderOrdinalInPlace: "#90cdf4", ContenderOrdinalOverrides: "#2c5282", ContenderBuiltin: "#c05621",
	ContenderBuiltinGateOff: "#d69e2e", ContenderFloor: "#718096", ContenderOrdinalConfig: "#3182ce", ContenderOrdinalReload: "#63b3ed",
	ContenderOrdinalBefore: "#a0aec0", ContenderOrdinalExtendedBefore: "#cbd5e0",
}

// WriteSVG draws, for every scenario and client limit, one bar per contender:
// its wall time as a multiple of the floor's (1.0 is the physical limit).
// Bars are capped at chartMaxRatio and labelled with the exact ratio.
func WriteSVG(w io.Writer, results []Result) error {
	floors := floorOf(results)
	rows := append([]Result(nil), results...)
	sortResults(rows)
	var body strings.Builder
	y := chartTop
	var last group
	for i, r := range rows {
		g := group{r.Scenario, r.QPS}
		f, ok := floors[g]
		if !ok || r.Error != "" {
			continue
		}
		if i > 0 && g != last {
			y += chartGroupGap
		}
		last = g
		ratio := Ratio(r.Seconds, f.Seconds)
		width := chartBarMax * math.Min(ratio, chartMaxRatio) / chartMaxRatio
		label := fmt.Sprintf("%s %s %s", r.Scenario, QPSLabel(r.QPS, r.Burst), r.Contender)
		fmt.Fprintf(&body, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", chartLabelWidth-6, y+12, html.EscapeString(label))
		fmt.Fprintf(&body, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n",
			chartLabelWidth, y+2, width, chartRowHeight-4, colour(r.Contender))
		fmt.Fprintf(&body, `<text x="%.1f" y="%d">%s×</text>`+"\n", float64(chartLabelWidth)+width+4, y+12, fmtRatio(ratio))
		y += chartRowHeight
	}
	height := y + 20
	totalWidth := chartLabelWidth + chartBarMax + 60
	one := float64(chartLabelWidth) + chartBarMax/chartMaxRatio
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">
<text x="10" y="18" font-size="13" font-weight="bold">Wall time to the end state, as a multiple of the floor (lower is better; bars capped at %g×)</text>
<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-dasharray="3,3"/>
<text x="%.1f" y="%d">1× floor</text>
%s</svg>
`, totalWidth, height, chartMaxRatio, one, chartTop-6, one, y, one+3, chartTop-8, body.String())
	return err
}

func colour(contender string) string {
	if c, ok := contenderColours[contender]; ok {
		return c
	}
	return "#999"
}
