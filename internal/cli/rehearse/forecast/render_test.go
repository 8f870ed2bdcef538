package forecast

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"
	"github.com/ordinal-sh/ordinal/internal/golden"
)

// run builds a run the way a rehearsal does, from samples and plan
// samples.
func run(controller, kind string, outcome Outcome, samples []Sample, plans []PlanSample, end time.Duration) Run {
	tracks := Tracks("web", samples, end)
	counts := Counts(tracks, 0)
	ready, avail := Fewest(counts, end)
	return Run{
		Controller: controller, Kind: kind, Outcome: outcome, Seconds: Seconds(end), Replicas: 3,
		From: "web-a", To: "web-b", MinReady: ready, MinAvailable: avail,
		Budgets: []Budget{CheckBudget("web", 2, counts, end)},
		Waits:   Waits(plans, end),
		Writes:  []Write{{"create", "pods", 3}, {"delete", "pods", 3}, {"update", "statefulsets/status", 4}, {"create", "events", 6}},
		Pods:    tracks, WritesTotal: 16,
	}
}

// revisions renames the samples' revisions a and b to the runs' names.
func revisions(samples []Sample) []Sample {
	out := make([]Sample, len(samples))
	for i, s := range samples {
		s.Revision = map[string]string{"a": "web-a", "b": "web-b"}[s.Revision]
		out[i] = s
	}
	return out
}

func plansOf(samples []Sample) []PlanSample {
	var out []PlanSample
	for _, s := range samples {
		switch {
		case s.Terminating:
			out = append(out, PlanSample{At: s.At, Waits: []WaitSample{{s.Pod, termWhy}}})
		case !s.Gone && !s.Ready && s.At > 0:
			out = append(out, PlanSample{At: s.At, Waits: []WaitSample{{s.Pod, readyWhy}}})
		default:
			out = append(out, PlanSample{At: s.At, Acting: true})
		}
	}
	return out
}

func learned() learn.Timings {
	return learn.Timings{
		Pods: []learn.Pod{
			{Name: "web-0", Ordinal: 0, StartUp: learn.Seconds(3 * time.Second), StartUpFrom: learn.FromConditions, Shutdown: learn.Seconds(2 * time.Second), ShutdownFrom: learn.FromEvents},
			{Name: "web-1", Ordinal: 1, StartUp: learn.Seconds(3 * time.Second), StartUpFrom: learn.FromPeers, Shutdown: learn.Seconds(2 * time.Second), ShutdownFrom: learn.FromEvents, Restarts: 1},
			{Name: "web-2", Ordinal: 2, StartUp: learn.Seconds(3 * time.Second), StartUpFrom: learn.FromConditions, Shutdown: learn.Seconds(2 * time.Second), ShutdownFrom: learn.FromEvents},
		},
		StartUp: learn.Seconds(3 * time.Second), StartUpFrom: learn.FromPeers, Shutdown: learn.Seconds(2 * time.Second), ShutdownFrom: learn.FromPeers,
		GracePeriod: learn.Seconds(10 * time.Second),
		Notes:       []string{"start-up not in the conditions of web-1 (restarted, not Ready or not scheduled): played as 3.0s from peers"},
	}
}

func base() Forecast {
	return Forecast{
		Set:     SetInfo{Context: "prod", Namespace: "shop", Name: "web", Kind: "statefulset.apps", Replicas: 3, PodManagementPolicy: "OrderedReady", Strategy: "RollingUpdate", ServerVersion: "v1.37.2"},
		Change:  []string{"image app=example/app:v2"},
		Learned: learned(),
		Source:  Requests{Reads: 11, ByVerb: map[string]int{"get": 4, "list": 7}},
	}
}

// completed is a rollout every controller completes, the extended kind
// evicting through the budget.
func completed() Forecast {
	f := base()
	samples := revisions(rollout())
	f.Runs = []Run{
		run("built-in", "apps/v1", Completed, samples, plansOf(samples), 15600*time.Millisecond),
		run("ordinal", "apps/v1", Completed, samples, plansOf(samples), 15600*time.Millisecond),
		run("ordinal-extended", "apps.ordinal.dev/v1alpha1", Completed, samples, plansOf(samples), 15600*time.Millisecond),
	}
	f.Verdict = Verdict(f)
	return f
}

// failing is a new revision that never becomes Ready: apps/v1 is stuck
// at web-2, the extended kind rolls back.
func failing() Forecast {
	f := base()
	f.NewRevisionFails = "never-ready"
	ms := time.Millisecond
	stuck := revisions([]Sample{
		{At: 0, Pod: "web-0", Revision: "a", Ready: true}, {At: 0, Pod: "web-1", Revision: "a", Ready: true}, {At: 0, Pod: "web-2", Revision: "a", Ready: true},
		{At: 100 * ms, Pod: "web-2", Revision: "a", Ready: true, Terminating: true},
		{At: 2100 * ms, Pod: "web-2", Gone: true},
		{At: 2200 * ms, Pod: "web-2", Revision: "b"},
	})
	back := append(stuck[:len(stuck):len(stuck)], revisions([]Sample{
		{At: 32200 * ms, Pod: "web-2", Revision: "b", Terminating: true},
		{At: 34200 * ms, Pod: "web-2", Gone: true},
		{At: 34300 * ms, Pod: "web-2", Revision: "a"},
		{At: 37300 * ms, Pod: "web-2", Revision: "a", Ready: true},
	})...)
	builtin := run("built-in", "apps/v1", Stuck, stuck, plansOf(stuck), 2200*ms)
	builtin.StuckAt = &Wait{From: Seconds(2200 * ms), Pod: "web-2", Category: "readiness", Why: readyWhy}
	ordinal := builtin
	ordinal.Controller = "ordinal"
	ext := run("ordinal-extended", "apps.ordinal.dev/v1alpha1", RolledBack, back, plansOf(back), 37300*ms)
	ext.Events = []Event{{At: Seconds(32200 * ms), Reason: "RolledBack", Message: "rolled back to revision web-a: web-2 did not become Ready within progressDeadlineSeconds 30"}}
	f.Runs = []Run{builtin, ordinal, ext}
	f.Verdict = Verdict(f)
	return f
}

func TestTheForecastRendersAsTextAndAsATimeline(t *testing.T) {
	for name, f := range map[string]Forecast{"completed": completed(), "failing": failing()} {
		t.Run(name, func(t *testing.T) {
			var text bytes.Buffer
			if err := WriteText(&text, f); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, name+".txt", text.String())
			golden.Check(t, name+".svg", SVG(f))
			raw, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, name+".json", string(raw)+"\n")
		})
	}
}

func TestTheVerdictSaysHowEachControllerEnds(t *testing.T) {
	if got, want := completed().Verdict, "statefulset.apps/web (3 pods) in shop, image app=example/app:v2: built-in completes in 15.6s, 2 of 3 Ready at worst; "; !strings.HasPrefix(got, want) {
		t.Errorf("verdict\n%s\ndoes not start\n%s", got, want)
	}
	got := failing().Verdict
	for _, want := range []string{
		", new revision never Ready: ",
		"built-in is stuck at web-2 after 2.2s (readiness) until someone acts, 2 of 3 Ready at worst",
		"ordinal-extended rolls back on its own, done in 37.3s, 2 of 3 Ready at worst.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict\n%s\nmisses %q", got, want)
		}
	}
	f := completed()
	f.Runs[0].Budgets[0] = Budget{Name: "web", Needs: 3, MinHealthy: 2, Below: Seconds(15300 * time.Millisecond)}
	if got := Verdict(f); !strings.Contains(got, "built-in completes in 15.6s, 2 of 3 Ready at worst, breaks PodDisruptionBudget web for 15.3s (2 Ready, it needs 3); ordinal") {
		t.Errorf("a broken budget is not in the verdict:\n%s", got)
	}
}

func TestAJSONForecastReadsBackTheSame(t *testing.T) {
	f := failing()
	raw, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back Forecast
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(back)
	if err != nil || !bytes.Equal(raw, again) {
		t.Errorf("JSON changed on a round trip:\n%s\n%s", raw, again)
	}
}
