package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// DefaultCPUShift is how far, as a fraction of the recorded ratio, a
// contender's CPU ratio to the built-in controller may move before the
// report says it moved. Single runs on a shared machine swing by up to
// 0.2-0.3× (docs/benchmarks.md), so a flagged move is a reason to repeat
// the pair, not yet a verdict.
const DefaultCPUShift = 0.15

// Recorded is one file of recorded results (written with --json).
type Recorded struct {
	Source  string
	Results []Result
}

// CPUShift compares a contender's CPU, as a ratio to the built-in
// controller's in the same invocation, with the last recorded run of the
// same scenario, size and client limits.
type CPUShift struct {
	Scenario, Size, Contender string
	QPS                       float32
	Burst, Workers            int
	// Source is the recorded file compared with.
	Source string
	// CPU and BuiltinCPU are the CPU seconds now, summed over the
	// invocation's runs of the group; RecordedCPU and RecordedBuiltin
	// the same in Source.
	CPU, BuiltinCPU, RecordedCPU, RecordedBuiltin float64
	// Ratio is CPU/BuiltinCPU, RecordedRatio the same in Source.
	Ratio, RecordedRatio float64
	// Moved says the ratio moved by more than the threshold, as a
	// fraction of RecordedRatio.
	Moved bool
}

// Change is the move of the ratio as a fraction of the recorded one.
func (s CPUShift) Change() float64 { return s.Ratio/s.RecordedRatio - 1 }

// runGroup is what makes two runs comparable.
type runGroup struct {
	Scenario, Size string
	QPS            float32
	Burst, Workers int
}

func groupOf(r Result) runGroup {
	return runGroup{Scenario: r.Scenario, Size: r.Size, QPS: r.QPS, Burst: r.Burst, Workers: r.Workers}
}

// cpuSums sums the CPU seconds of results' successful runs by group and
// contender.
func cpuSums(results []Result) map[runGroup]map[string]float64 {
	out := map[runGroup]map[string]float64{}
	for _, r := range results {
		if r.Error != "" || r.CPUSeconds <= 0 {
			continue
		}
		g := groupOf(r)
		if out[g] == nil {
			out[g] = map[string]float64{}
		}
		out[g][r.Contender] += r.CPUSeconds
	}
	return out
}

// CompareCPU compares each contender's CPU ratio to the built-in
// controller (ContenderBuiltin) in current with the last run of recorded
// (oldest first) that has both of the same group, and marks a move by more
// than threshold, as a fraction of the recorded ratio. Groups without the
// built-in controller, now or in any recorded run, are left out; so are
// the built-in controller itself and the floor.
func CompareCPU(current []Result, recorded []Recorded, threshold float64) []CPUShift {
	now := cpuSums(current)
	past := make([]map[runGroup]map[string]float64, len(recorded))
	for i, rec := range recorded {
		past[i] = cpuSums(rec.Results)
	}
	var out []CPUShift
	done := map[runGroup]map[string]bool{}
	for _, r := range current {
		g := groupOf(r)
		cpu, builtin := now[g][r.Contender], now[g][ContenderBuiltin]
		if r.Contender == ContenderBuiltin || r.Contender == ContenderFloor || cpu <= 0 || builtin <= 0 || done[g][r.Contender] {
			continue
		}
		if done[g] == nil {
			done[g] = map[string]bool{}
		}
		done[g][r.Contender] = true
		if s, ok := lastRecorded(g, r.Contender, recorded, past); ok {
			s.CPU, s.BuiltinCPU = cpu, builtin
			s.Ratio = cpu / builtin
			s.Moved = math.Abs(s.Change()) > threshold
			out = append(out, s)
		}
	}
	return out
}

// lastRecorded is the comparison of contender in group g with the last of
// recorded that ran both it and the built-in controller, its figures now
// not yet filled in; past are recorded's sums.
func lastRecorded(g runGroup, contender string, recorded []Recorded, past []map[runGroup]map[string]float64) (CPUShift, bool) {
	for i := len(past) - 1; i >= 0; i-- {
		was, wasBuiltin := past[i][g][contender], past[i][g][ContenderBuiltin]
		if was > 0 && wasBuiltin > 0 {
			return CPUShift{Scenario: g.Scenario, Size: g.Size, Contender: contender, QPS: g.QPS, Burst: g.Burst, Workers: g.Workers,
				Source: recorded[i].Source, RecordedCPU: was, RecordedBuiltin: wasBuiltin, RecordedRatio: was / wasBuiltin}, true
		}
	}
	return CPUShift{}, false
}

// WriteCPUComparison writes the comparison as a Markdown section, saying
// first which contenders' ratios moved by more than threshold.
func WriteCPUComparison(w io.Writer, shifts []CPUShift, threshold float64) error {
	var b strings.Builder
	b.WriteString("\n### CPU against the last recorded run\n\n")
	if len(shifts) == 0 {
		b.WriteString("No recorded run of the same scenario, size and limits with `builtin` beside the contender: nothing to compare.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "Each ratio is the contender's CPU seconds over `builtin`'s in the same invocation (summed over its runs); "+
		"a move by more than %.0f %% of the recorded ratio is flagged. Single runs swing by up to 0.3×: repeat a flagged pair before concluding.\n\n", threshold*100)
	for _, s := range shifts {
		if s.Moved {
			fmt.Fprintf(&b, "- **%s's CPU ratio %s** in %s %s (%s): %.2f× against %.2f× in %s (%+.0f %%).\n",
				s.Contender, direction(s), s.Scenario, s.Size, QPSLabel(s.QPS, s.Burst), s.Ratio, s.RecordedRatio, s.Source, 100*s.Change())
		}
	}
	b.WriteString("\n| scenario | size | qps/burst | contender | CPU s, contender / builtin | × builtin | recorded | × builtin | change | recorded in |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, s := range shifts {
		mark := ""
		if s.Moved {
			mark = " **" + direction(s) + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f / %.2f | %.2f | %.2f / %.2f | %.2f | %+.0f %%%s | %s |\n",
			s.Scenario, s.Size, QPSLabel(s.QPS, s.Burst), s.Contender, s.CPU, s.BuiltinCPU, s.Ratio,
			s.RecordedCPU, s.RecordedBuiltin, s.RecordedRatio, 100*s.Change(), mark, s.Source)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func direction(s CPUShift) string {
	if s.Ratio > s.RecordedRatio {
		return "rose"
	}
	return "fell"
}
