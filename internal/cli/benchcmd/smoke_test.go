package benchcmd_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/bench"
	"github.com/ordinal-sh/ordinal/internal/cli/root"
)

// execMainEnv makes the test binary act as the ordinal command, so the
// harness runs it as plane and contenders without linking a second binary.
const execMainEnv = "ORDINAL_TEST_EXEC_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(execMainEnv) == "1" {
		os.Exit(root.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestBenchRunsParallelScaleUpEndToEndForOrdinalAndFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two control planes")
	}
	cfg := bench.NewConfig()
	cfg.Scenarios = []string{bench.ScenarioParallelScaleUp}
	cfg.Contenders = []string{bench.ContenderOrdinal, bench.ContenderFloor}
	cfg.Limits = []bench.Limit{{QPS: 20, Burst: 30}}
	cfg.Sizes.Replicas = 5
	cfg.Nodes = 1
	cfg.PlaneReadyDelay = 100 * time.Millisecond
	cfg.StepTimeout = time.Minute
	cfg.Binary, cfg.Env = os.Args[0], []string{execMainEnv + "=1"}
	cfg.Commands = bench.SelfCommands(os.Args[0])
	cfg.WorkDir = t.TempDir()
	cfg.Progress = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	results, err := bench.Run(ctx, cfg, nil)
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

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
