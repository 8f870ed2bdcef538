package chaos

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// result is one run's outcome.
type result struct {
	seed        int64
	faults      int
	violations  []invariant.Violation
	converged   bool
	why         string // why it did not converge
	took        time.Duration
	convergedIn time.Duration
	handOvers   map[string]int // by direction
	log         []string
}

// TestChaos runs -runs seeded runs one after another on the shared plane,
// each in its own namespace, and ends with one summary line.
func TestChaos(t *testing.T) {
	seed := *flagSeed
	if seed == 0 {
		seed = time.Now().UnixNano() % 1_000_000
	}
	began := time.Now()
	var faults, violations, converged int
	var worst time.Duration
	handOvers := map[string]int{}
	for i := 0; i < *flagRuns; i++ {
		res := runOnce(t, seed+int64(i), i >= *flagRuns-*flagAllRuns)
		faults += res.faults
		violations += len(res.violations)
		if res.converged {
			converged++
		}
		status := "ok"
		if !res.converged || len(res.violations) > 0 {
			status = "FAILED"
			t.Errorf("run seed=%d failed: converged=%t %s; %d violations:\n%s\nscenario:\n  %s", res.seed, res.converged, res.why,
				len(res.violations), violationLines(res.violations), strings.Join(res.log, "\n  "))
		}
		fmt.Printf("chaos run %d/%d seed=%d%s faults=%d hand-overs=%d violations=%d converged=%t (in %s) took=%s %s\n", i+1, *flagRuns, res.seed,
			allWord(i >= *flagRuns-*flagAllRuns), res.faults, sum(res.handOvers), len(res.violations), res.converged, res.convergedIn.Round(100*time.Millisecond), res.took.Round(100*time.Millisecond), status)
		if status != "ok" {
			fmt.Printf("  seed=%d: %s\n%s", res.seed, res.why, violationLines(res.violations))
		}
		if *flagTrace {
			fmt.Println("  " + strings.Join(res.log, "\n  "))
		}
		worst = max(worst, res.convergedIn)
		for dir, n := range res.handOvers {
			handOvers[dir] += n
		}
	}
	fmt.Printf("chaos: first seed %d, wall time %s, slowest convergence %s (bound %s)\n", seed,
		time.Since(began).Round(time.Second), worst.Round(100*time.Millisecond), *flagConverge)
	fmt.Printf("chaos: hand-overs ordinal->builtin=%d builtin->ordinal=%d\n", handOvers[direction(invariant.Ordinal, invariant.Builtin)],
		handOvers[direction(invariant.Builtin, invariant.Ordinal)])
	fmt.Printf("chaos: runs=%d faults=%d violations=%d converged=%d/%d\n", *flagRuns, faults, violations, converged, *flagRuns)
}

func violationLines(vs []invariant.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  " + v.String() + "\n")
	}
	return b.String()
}

// runOnce runs the run of seed; all turns every extended feature on in
// every extended set it creates (features_test.go).
func runOnce(t *testing.T, seed int64, all bool) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r, err := newRun(ctx, t, seed)
	if err != nil {
		return result{seed: seed, why: err.Error()}
	}
	r.all = all
	defer r.cleanup()
	return r.execute(ctx)
}

func sum(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
