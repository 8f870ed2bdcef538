package benchcmd_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/bench"
	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// TestMain lets the harness run this test binary as the ordinal command,
// as plane and contenders, without linking a second binary.
func TestMain(m *testing.M) {
	planetest.ExecMain(root.Main)
	os.Exit(planetest.RunOneAtATime(m))
}

func TestBenchRunsParallelScaleUpEndToEndForOrdinalAndFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two control planes")
	}
	results, err := runSelf(t, bench.ScenarioParallelScaleUp, 5, bench.ContenderOrdinal, bench.ContenderFloor)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("got %d results, want 2", len(results))
	}
	for _, r := range results {
		t.Logf("%+v", r)
		if r.Error != "" {
			t.Errorf("%s failed: %s", r.Contender, r.Error)
			continue
		}
		if r.Seconds <= 0 || r.CPUSeconds <= 0 || r.PeakRSSBytes <= 0 {
			t.Errorf("%s: seconds %v, CPU %v, peak RSS %d; want all positive", r.Contender, r.Seconds, r.CPUSeconds, r.PeakRSSBytes)
		}
		if r.NewPods != 5 {
			t.Errorf("%s: saw %d new pods, want 5", r.Contender, r.NewPods)
		}
		// Five pods and five claims at least; the floor makes exactly those.
		if r.WritesBy["POST pods"] != 5 || r.WritesBy["POST persistentvolumeclaims"] != 5 {
			t.Errorf("%s: writes %v, want 5 pod and 5 claim creates", r.Contender, r.WritesBy)
		}
		if r.Contender == bench.ContenderFloor && (r.APIWrites != 10 || r.SelfCountedWrites == nil || *r.SelfCountedWrites != 10) {
			t.Errorf("floor: %d writes at the API server, self-counted %v; want 10 and 10", r.APIWrites, r.SelfCountedWrites)
		}
	}
}

// A scenario with a setup step: the measured window begins only once the
// contender has come to rest, so it holds the rollout's writes and none of
// the setup's (the claims, the status and events of the first pods).
func TestBenchMeasuresARolloutFromRestAfterItsSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	// Ordinal on apps/v1 and on the extended kind: the same manifest and
	// rollout make the same writes.
	results, err := runSelf(t, bench.ScenarioMaxUnavailable, 4, bench.ContenderOrdinal, bench.ContenderOrdinalExtended)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("got %d results, want 2", len(results))
	}
	for _, r := range results {
		t.Logf("%+v", r)
		if r.Error != "" {
			t.Errorf("%s failed: %s", r.Contender, r.Error)
			continue
		}
		// At 20/30 a poll is 2 s, and resting takes two readings a poll apart.
		if r.QuietWaitSeconds < 2 {
			t.Errorf("%s: waited %.1f s for rest after the setup, want at least one 2 s poll", r.Contender, r.QuietWaitSeconds)
		}
		if r.WritesBy["DELETE pods"] != 4 || r.WritesBy["POST pods"] != 4 || r.WritesBy["POST controllerrevisions"] != 1 {
			t.Errorf("%s: writes %v, want the rollout's 4 pod deletes, 4 creates and 1 revision", r.Contender, r.WritesBy)
		}
		if n := r.WritesBy["POST persistentvolumeclaims"]; n != 0 {
			t.Errorf("%s: %d claim creates in the window, want none: the claims are the setup's", r.Contender, n)
		}
	}
}

// runSelf runs one scenario at QPS 20/30 on one simulated node, with this
// test binary as the plane and the contenders.
func runSelf(t *testing.T, scenario string, replicas int32, contenders ...string) ([]bench.Result, error) {
	t.Helper()
	cfg := bench.NewConfig()
	cfg.Scenarios = []string{scenario}
	cfg.Contenders = contenders
	cfg.Limits = []bench.Limit{{QPS: 20, Burst: 30}}
	cfg.Sizes.Replicas = replicas
	cfg.Nodes = 1
	cfg.PlaneReadyDelay = 100 * time.Millisecond
	cfg.StepTimeout = time.Minute
	cfg.Binary, cfg.Env = os.Args[0], []string{planetest.ExecMainEnv + "=1"}
	cfg.Commands = bench.SelfCommands(os.Args[0])
	cfg.WorkDir = t.TempDir()
	cfg.Progress = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return bench.Run(ctx, cfg, nil)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
