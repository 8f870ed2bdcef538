package chaos

import (
	"flag"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

var (
	flagRuns      = flag.Int("runs", 2, "number of randomised runs")
	flagSeed      = flag.Int64("seed", 0, "seed of the first run (0: from the clock); run i uses seed+i")
	flagOps       = flag.Int("ops", 8, "operations and faults per run")
	flagFaultRate = flag.Float64("fault-rate", 0.05, "fraction of the controller's API requests that fail, in runs with API faults")
	flagConverge  = flag.Duration("converge", 120*time.Second, "bound for convergence once the faults stop")
	flagNodeLoss  = flag.Float64("node-loss", 0.2, "probability that a run removes a node")
	flagTrace     = flag.Bool("trace", false, "print each run's scenario")
)

func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) {
		cfg.StatefulSetController = plane.ControllerNone
		cfg.Nodes = 3
	})
}
