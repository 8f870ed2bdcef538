package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/golden"
)

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	cases := []struct {
		name    string
		samples []time.Duration
		p       float64
		want    time.Duration
		ok      bool
	}{
		{"no samples have no percentile", nil, 50, 0, false},
		{"one sample is every percentile", ms(7), 99, 7 * time.Millisecond, true},
		{"the median of unsorted samples is the middle rank", ms(5, 1, 3), 50, 3 * time.Millisecond, true},
		{"p99 of 100 samples is the 99th smallest", ms(seq(100)...), 99, 99 * time.Millisecond, true},
		{"p99 of 49 samples is the largest", ms(seq(49)...), 99, 49 * time.Millisecond, true},
		{"p50 of an even count is the lower middle", ms(1, 2, 3, 4), 50, 2 * time.Millisecond, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Percentile(c.samples, c.p)
			if got != c.want || ok != c.ok {
				t.Errorf("Percentile(%v, %g) = %v, %v; want %v, %v", c.samples, c.p, got, ok, c.want, c.ok)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = n - i // descending, to prove sorting
	}
	return out
}

func TestPairReactionsMatchesEachReadyWithTheNextWrite(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ready := []time.Time{at(100), at(300), at(500)}
	writes := []time.Time{at(50), at(100), at(104), at(320), at(330)}
	got := pairReactions(ready, writes)
	want := []time.Duration{4 * time.Millisecond, 20 * time.Millisecond}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
}

func TestSumWritesCountsPodDeletesAsDeletionMarks(t *testing.T) {
	delta := map[writeKey]int64{
		{"POST", "pods", 201}:                   10,
		{"POST", "persistentvolumeclaims", 201}: 10,
		{"POST", "pods", 409}:                   2,
		{"DELETE", "pods", 200}:                 10,
		{"DELETE", "pods", 404}:                 2,
		{"PUT", "statefulsets/status", 200}:     3,
	}
	total, errs, by := sumWrites(delta, 4)
	if total != 29 || errs != 2 {
		t.Errorf("total %d errors %d, want 29 and 2", total, errs)
	}
	want := map[string]int64{"POST pods": 12, "POST persistentvolumeclaims": 10, "DELETE pods": 4, "PUT statefulsets/status": 3}
	if diff := cmp.Diff(want, by); diff != "" {
		t.Errorf("by verb (-want +got):\n%s", diff)
	}
}

func TestParseWritesKeepsOnlyCountedWrites(t *testing.T) {
	text := `# HELP apiserver_request_total x
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 12
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 12
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="statefulsets",scope="resource",subresource="status",verb="PUT",version="v1"} 4
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="statefulsets",scope="resource",subresource="",verb="PUT",version="v1"} 9
apiserver_request_total{code="409",component="apiserver",dry_run="",group="apps",resource="controllerrevisions",scope="resource",subresource="",verb="POST",version="v1"} 1e+00
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="eviction",verb="POST",version="v1"} 5
`
	got, err := parseWrites(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[writeKey]int64{{"POST", "pods", 201}: 12, {"PUT", "statefulsets/status", 200}: 4, {"POST", "controllerrevisions", 409}: 1,
		{"POST", "pods/eviction", 201}: 5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}

func TestParseStatCPUCountsFieldsAfterTheCommandName(t *testing.T) {
	stat := []byte("4242 (ordinal (x) y) S 1 2 3 4 5 6 7 8 9 10 250 150 0 0 20 0 9 0 100 200 300")
	got, err := parseStatCPU(stat)
	if err != nil || got != 4.0 {
		t.Errorf("parseStatCPU = %v, %v; want 4 seconds (250+150 ticks)", got, err)
	}
}

// sampleResults is a fixed report: two scenarios, every contender, one run
// failed.
func sampleResults() []Result {
	f := func(x float64) *float64 { return &x }
	n, lagMax := int64(600), int64(57)
	return []Result{
		{Scenario: ScenarioParallelScaleUp, Contender: ContenderFloor, QPS: 20, Burst: 30, Workers: 5, Size: "1×300",
			Seconds: 30.1, LastWriteSeconds: 20, APIWrites: 600, NewPods: 300, WritesPerNewPod: 2, CPUSeconds: 1.5, PeakRSSBytes: 40 << 20, SelfCountedWrites: &n},
		{Scenario: ScenarioParallelScaleUp, Contender: ContenderOrdinal, QPS: 20, Burst: 30, Workers: 5, Size: "1×300",
			Seconds: 31, LastWriteSeconds: 24.5, APIWrites: 610, NewPods: 300, WritesPerNewPod: 610.0 / 300, CPUSeconds: 2.25, PeakRSSBytes: 50 << 20, PeakAnonBytes: 20 << 20, EventWrites: 300,
			StatusLagMean: f(12.25), StatusLagMax: &lagMax, StatusWaitMs: f(84.4), Load: "0.41 1.03 1.16"},
		{Scenario: ScenarioParallelScaleUp, Contender: ContenderBuiltin, QPS: 0, Workers: 5, Size: "1×300",
			Error: "no end state after 1m: set web has 3 of 300 pods"},
		{Scenario: ScenarioOrderedRollout, Contender: ContenderOrdinal, QPS: 20, Burst: 30, Workers: 5, Size: "1×50",
			Seconds: 61.2, APIWrites: 250, APIWriteErrors: 2, NewPods: 50, WritesPerNewPod: 5, CPUSeconds: 3, PeakRSSBytes: 60 << 20,
			ReactionP50Ms: f(3.2), ReactionP99Ms: f(9.75), ReactionSamples: 49},
		{Scenario: ScenarioOrderedRollout, Contender: ContenderFloor, QPS: 20, Burst: 30, Workers: 5, Size: "1×50",
			Seconds: 60, APIWrites: 100, NewPods: 50, WritesPerNewPod: 2, CPUSeconds: 0.5, PeakRSSBytes: 30 << 20,
			ReactionP50Ms: f(1.5), ReactionP99Ms: f(4), ReactionSamples: 49},
	}
}

func scalingResults() []Result {
	return []Result{
		{Scenario: ScenarioScaling, Contender: ContenderBuiltinGateOff, Size: "1×1000", Seconds: 40, PodEvents: 11000,
			CPUSeconds: 8.8, CPUPerPodEventMs: 0.8, PeakRSSBytes: 60 << 20,
			Restart: &Restart{FirstActionSeconds: 0.41, ConvergedSeconds: 2.2, RestSeconds: 3.1, RestPollSeconds: 2, CPUSeconds: 0.5, PeakRSSBytes: 50 << 20}},
		{Scenario: ScenarioScaling, Contender: ContenderOrdinal, Size: "1×1000", Seconds: 38, PodEvents: 11020,
			CPUSeconds: 5.5, CPUPerPodEventMs: 0.499, PeakRSSBytes: 45 << 20,
			Restart: &Restart{PodListSeconds: 0.15, FirstActionSeconds: 0.2, ConvergedSeconds: 2, RestSeconds: 3, RestPollSeconds: 2, CPUSeconds: 0.3, PeakRSSBytes: 40 << 20}},
		{Scenario: ScenarioScaling, Contender: ContenderOrdinal, Size: "1×5000", Seconds: 200, PodEvents: 56000,
			CPUSeconds: 30, CPUPerPodEventMs: 0.536, PeakRSSBytes: 80 << 20,
			Restart: &Restart{PodListSeconds: 0.6, FirstActionSeconds: 0.9, ConvergedSeconds: 2, RestSeconds: 3, RestPollSeconds: 2, CPUSeconds: 0.8, PeakRSSBytes: 60 << 20}},
		{Scenario: ScenarioScalingSets, Contender: ContenderOrdinal, Size: "5000×2", Error: "restart: no pod written 30m0s after the restart"},
		{Scenario: ScenarioOrderedRollout, Contender: ContenderOrdinal, Size: "1×50", Seconds: 50},
	}
}

func TestRenderingMatchesGoldenFiles(t *testing.T) {
	renders := map[string]func(*bytes.Buffer) error{
		"table.md":     func(b *bytes.Buffer) error { return WriteTable(b, sampleResults()) },
		"results.json": func(b *bytes.Buffer) error { return WriteJSON(b, sampleResults()) },
		"chart.svg":    func(b *bytes.Buffer) error { return WriteSVG(b, sampleResults()) },
		"scaling.md":   func(b *bytes.Buffer) error { return WriteScalingTable(b, scalingResults()) },
		"scaling.svg":  func(b *bytes.Buffer) error { return WriteScalingSVG(b, scalingResults()) },
	}
	for name, render := range renders {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := render(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, name, b.String())
		})
	}
}

func TestJSONRoundTrips(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleResults()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != len(sampleResults()) {
		t.Errorf("%d lines, want one per result", n)
	}
	text := b.String()
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleResults(), got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for _, key := range []string{`"scenario"`, `"contender"`, `"qps"`, `"seconds"`, `"api_writes"`, `"cpu_seconds"`, `"peak_rss_bytes"`} {
		if !strings.Contains(text, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestAReportFromSavedResultsDoesNotClaimTheRendererAsTheMachine(t *testing.T) {
	started := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	measured := Machine{CPUs: 2, CPUModel: "AMD EPYC", MemTotal: "24684092 kB", LoadStart: "0.50 0.40 0.30",
		LoadEnd: "1.00 0.80 0.60", Started: started, Finished: started.Add(90 * time.Second)}
	var live bytes.Buffer
	if err := WriteReport(&live, measured, "ordinal bench", "", sampleResults()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Run of 2026-11-22 21:00 UTC", "- machine: 2 CPUs (`nproc`), AMD EPYC, memory 24684092 kB",
		"0.50 0.40 0.30 at start, 1.00 0.80 0.60 at end; took 1m30s"} {
		if !strings.Contains(live.String(), want) {
			t.Errorf("report of a run lacks %q:\n%s", want, live.String())
		}
	}
	rendered := measured
	rendered.From = "saved.json"
	var saved bytes.Buffer
	if err := WriteReport(&saved, rendered, "ordinal bench --from-json saved.json", "", sampleResults()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(saved.String(), "## Results from saved.json") {
		t.Errorf("report from saved results does not name them:\n%s", saved.String())
	}
	for _, wrong := range []string{"AMD EPYC", "load average", "took"} {
		if strings.Contains(saved.String(), wrong) {
			t.Errorf("report from saved results claims %q of the machine rendering it:\n%s", wrong, saved.String())
		}
	}
}
