package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// run is a result of the 1000-pod scale-up at QPS 20/30 unless changed.
func run(contender string, cpu float64, opts ...func(*Result)) Result {
	r := Result{Scenario: "parallel-scaleup", Size: "1×1000", Contender: contender, QPS: 20, Burst: 30, Workers: 5, CPUSeconds: cpu}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func TestCompareCPUFlagsARatioThatMovedPastTheThreshold(t *testing.T) {
	scaleDown := func(r *Result) { r.Scenario, r.Size = "parallel-scaledown", "1000→0" }
	unthrottled := func(r *Result) { r.QPS, r.Burst = 0, 0 }
	failed := func(r *Result) { r.Error = "timed out" }
	older := Recorded{Source: "2026-11-20.json", Results: []Result{run("ordinal", 3, scaleDown), run("builtin", 3, scaleDown),
		run("ordinal", 1), run("builtin", 4)}}
	last := Recorded{Source: "2026-11-26.json", Results: []Result{run("ordinal", 3.48), run("builtin", 3.82), run("floor", 3),
		run("ordinal-osts", 4), run("ordinal", 9, unthrottled)}}
	cases := []struct {
		name     string
		current  []Result
		recorded []Recorded
		want     []CPUShift
	}{{
		name:     "a rise from 0.91× to 1.24× is flagged against the last recorded run of the group",
		current:  []Result{run("ordinal", 5.99), run("builtin", 4.82), run("floor", 4)},
		recorded: []Recorded{older, last},
		want: []CPUShift{{Scenario: "parallel-scaleup", Size: "1×1000", Contender: "ordinal", QPS: 20, Burst: 30, Workers: 5, Source: "2026-11-26.json",
			CPU: 5.99, BuiltinCPU: 4.82, RecordedCPU: 3.48, RecordedBuiltin: 3.82, Ratio: 5.99 / 4.82, RecordedRatio: 3.48 / 3.82, Moved: true}},
	}, {
		name:     "a move within the threshold is compared and not flagged; a fall past it is flagged",
		current:  []Result{run("ordinal", 3.5), run("builtin", 3.7), run("ordinal", 1, scaleDown), run("builtin", 2, scaleDown)},
		recorded: []Recorded{older, last},
		want: []CPUShift{
			{Scenario: "parallel-scaleup", Size: "1×1000", Contender: "ordinal", QPS: 20, Burst: 30, Workers: 5, Source: "2026-11-26.json",
				CPU: 3.5, BuiltinCPU: 3.7, RecordedCPU: 3.48, RecordedBuiltin: 3.82, Ratio: 3.5 / 3.7, RecordedRatio: 3.48 / 3.82},
			{Scenario: "parallel-scaledown", Size: "1000→0", Contender: "ordinal", QPS: 20, Burst: 30, Workers: 5, Source: "2026-11-20.json",
				CPU: 1, BuiltinCPU: 2, RecordedCPU: 3, RecordedBuiltin: 3, Ratio: 0.5, RecordedRatio: 1, Moved: true},
		},
	}, {
		name:     "repeated runs of a group are summed, now and in the recorded run",
		current:  []Result{run("ordinal", 3), run("builtin", 2), run("builtin", 2), run("ordinal", 1)},
		recorded: []Recorded{{Source: "pairs.json", Results: []Result{run("ordinal", 1), run("builtin", 1), run("ordinal", 1), run("builtin", 1)}}},
		want: []CPUShift{{Scenario: "parallel-scaleup", Size: "1×1000", Contender: "ordinal", QPS: 20, Burst: 30, Workers: 5, Source: "pairs.json",
			CPU: 4, BuiltinCPU: 4, RecordedCPU: 2, RecordedBuiltin: 2, Ratio: 1, RecordedRatio: 1}},
	}, {
		name: "a contender or group without builtin beside it, now or recorded, or another size, limit or failed run, is not compared",
		current: []Result{run("ordinal-osts", 4), run("ordinal", 9, unthrottled), run("builtin", 9, unthrottled, failed),
			run("ordinal", 2, func(r *Result) { r.Size = "1×100" }), run("builtin", 2, func(r *Result) { r.Size = "1×100" }),
			run("ordinal-inplace", 2, scaleDown), run("builtin", 2, scaleDown)},
		recorded: []Recorded{older, last},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CompareCPU(c.current, c.recorded, DefaultCPUShift)
			if diff := cmp.Diff(c.want, got, cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("CompareCPU (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTheCPUComparisonSaysWhichRatioMovedAndWhere(t *testing.T) {
	shifts := CompareCPU([]Result{run("ordinal", 5.99), run("builtin", 4.82)},
		[]Recorded{{Source: "docs/bench-data/2026-11-26.json", Results: []Result{run("ordinal", 3.48), run("builtin", 3.82)}}}, DefaultCPUShift)
	var b bytes.Buffer
	if err := WriteCPUComparison(&b, shifts, DefaultCPUShift); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"flagged", "15 %",
		"**ordinal's CPU ratio rose** in parallel-scaleup 1×1000 (20/30): 1.24× against 0.91× in docs/bench-data/2026-11-26.json (+36 %).",
		"| parallel-scaleup | 1×1000 | 20/30 | ordinal | 5.99 / 4.82 | 1.24 | 3.48 / 3.82 | 0.91 | +36 % **rose** | docs/bench-data/2026-11-26.json |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the comparison lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteCPUComparison(&b, nil, DefaultCPUShift); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "nothing to compare") {
		t.Errorf("without a recorded run the comparison says %q, want that there is nothing to compare", b.String())
	}
}

// A directory of recorded runs is read in name order (the names begin with
// their dates), its .json files only, without the results being rendered
// again; a single file is read alone.
func TestRecordedRunsAreReadOldestFirst(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, results ...Result) string {
		var b bytes.Buffer
		if err := WriteJSON(&b, results); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("2026-11-26-pairs.json", run("ordinal", 2), run("builtin", 2))
	rendered := write("2026-11-28-new.json", run("ordinal", 3))
	write("2026-11-20.json", run("ordinal", 1))
	write("notes.md")
	sources := func(recorded []Recorded) []string {
		var out []string
		for _, r := range recorded {
			out = append(out, filepath.Base(r.Source)+":"+strconv.Itoa(len(r.Results)))
		}
		return out
	}
	got, err := ReadRecorded(dir, rendered)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2026-11-20.json:1", "2026-11-26-pairs.json:2"}, sources(got)); diff != "" {
		t.Errorf("recorded runs (-want +got):\n%s", diff)
	}
	if got, err = ReadRecorded(rendered, ""); err != nil || len(got) != 1 || got[0].Results[0].CPUSeconds != 3 {
		t.Errorf("ReadRecorded(one file) = %v, %v; want its one run", got, err)
	}
	write("2026-11-29-broken.json", run("ordinal", 3))
	if err := os.WriteFile(filepath.Join(dir, "2026-11-29-broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecorded(dir, ""); err == nil || !strings.Contains(err.Error(), "2026-11-29-broken.json") {
		t.Errorf("a broken recorded file gave %v, want an error naming it", err)
	}
}
