package chaos

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

var (
	flagRuns      = flag.Int("runs", 2, "number of randomised runs")
	flagAllRuns   = flag.Int("all-features-runs", 1, "of the runs, how many (the last ones) turn every extended feature on in every extended set they create")
	flagSeed      = flag.Int64("seed", 0, "seed of the first run (0: from the clock); run i uses seed+i")
	flagOps       = flag.Int("ops", 8, "operations and faults per run")
	flagFaultRate = flag.Float64("fault-rate", 0.05, "fraction of the controller's API requests that fail, in runs with API faults")
	flagConverge  = flag.Duration("converge", 120*time.Second, "bound for convergence once the faults stop")
	flagNodeLoss  = flag.Float64("node-loss", 0.2, "probability that a run removes a node")
	flagNodeFail  = flag.Float64("node-fail", 0.3, "probability that a run fails a node (ordinal node fail), then fences it or not, and restores it")
	flagTrace     = flag.Bool("trace", false, "print each run's scenario")
	flagHandOvers = flag.Int("handovers", 2, "steps of every run that hand the sets over to the other controller, besides those the mix picks "+
		"(two: from Ordinal to the built-in controller and back)")
)

// TestMain runs the plane as an `ordinal up` child process (so runs can
// restart it), or acts as the ordinal command when the test binary is
// started as one. Under -short it starts no plane, and only the tests
// that need none (the checks' own unit tests) run.
func TestMain(m *testing.M) {
	planetest.ExecMain(root.Main)
	flag.Parse()
	release, err := planetest.OneAtATime()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := testMain(m)
	release()
	os.Exit(code)
}

func testMain(m *testing.M) int {
	if testing.Short() {
		fmt.Println("-short: no test plane; the tests that need one skip")
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "ordinal-chaos-plane-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	began := time.Now()
	thePlane, err = startPlaneProc(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the test plane:", err)
		return 1
	}
	fmt.Printf("test plane (ordinal up, pid %d) ready in %s\n", thePlane.cmd.Process.Pid, time.Since(began).Round(time.Millisecond))
	code := m.Run()
	thePlane.stop(false)
	if code == 0 {
		_ = os.RemoveAll(dir)
	} else {
		fmt.Printf("plane logs kept in %s\n", dir)
	}
	return code
}
