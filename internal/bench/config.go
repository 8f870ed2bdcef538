package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// Contender names.
const (
	ContenderOrdinal       = "ordinal"
	ContenderBuiltin       = "builtin"
	ContenderBuiltinGateOn = "builtin-gate-on"
	ContenderFloor         = "floor"
)

// ContenderNames lists every contender in report order.
var ContenderNames = []string{ContenderOrdinal, ContenderBuiltin, ContenderBuiltinGateOn, ContenderFloor}

// unthrottledQPS is what "unthrottled" passes to contenders: every
// contender's flags refuse a negative (limiter-off) QPS, and a token bucket
// this large never waits.
const unthrottledQPS = 1000000

// Limit is a client QPS and burst; QPS 0 means unthrottled.
type Limit struct {
	QPS   float64
	Burst int
}

// Config is one `ordinal bench` invocation.
type Config struct {
	Scenarios  []string
	Contenders []string
	Limits     []Limit
	Workers    int
	Sizes      Sizes
	// Binary is the ordinal executable run as plane and contenders; Env is
	// added to their environment.
	Binary string
	Env    []string
	// WorkDir holds one directory per run (plane data, logs); Keep leaves
	// it in place.
	WorkDir         string
	Keep            bool
	Nodes           int
	PlaneReadyDelay time.Duration
	StepTimeout     time.Duration
	// Progress receives one line per run stage; nil discards them.
	Progress io.Writer
}

// NewConfig returns the defaults: every scenario and contender at KCM's
// limits (QPS 20, burst 30) and unthrottled, 5 workers.
func NewConfig() Config {
	return Config{
		Scenarios:       slices.Clone(ScenarioNames),
		Contenders:      slices.Clone(ContenderNames),
		Limits:          []Limit{{20, 30}, {0, 0}},
		Workers:         5,
		Nodes:           4,
		PlaneReadyDelay: time.Second,
		StepTimeout:     30 * time.Minute,
	}
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	var errs []error
	for _, s := range c.Scenarios {
		if !slices.Contains(ScenarioNames, s) {
			errs = append(errs, fmt.Errorf("unknown scenario %q (known: %v)", s, ScenarioNames))
		}
	}
	for _, s := range c.Contenders {
		if !slices.Contains(ContenderNames, s) {
			errs = append(errs, fmt.Errorf("unknown contender %q (known: %v)", s, ContenderNames))
		}
	}
	if len(c.Scenarios) == 0 || len(c.Contenders) == 0 || len(c.Limits) == 0 {
		errs = append(errs, errors.New("need at least one scenario, contender and QPS setting"))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers must be at least 1, got %d", c.Workers))
	}
	if c.Binary == "" {
		errs = append(errs, errors.New("no ordinal binary"))
	}
	return errors.Join(errs...)
}

// contenderArgs is the command line attaching contender to kubeconfig.
// The floor also writes its own count of writes to statsFile.
func contenderArgs(contender, kubeconfig, statsFile string, l Limit, workers int) []string {
	qps, burst := l.QPS, l.Burst
	if qps == 0 {
		qps, burst = unthrottledQPS, unthrottledQPS
	}
	common := []string{"--kubeconfig", kubeconfig, "--qps", fmt.Sprint(qps), "--burst", fmt.Sprint(burst),
		"--workers", fmt.Sprint(workers), "--leader-elect=false", "--metrics-address="}
	switch contender {
	case ContenderOrdinal:
		return append([]string{"controller"}, common...)
	case ContenderBuiltin:
		return append(append([]string{"bench-builtin-controller"}, common...), "--max-unavailable-gate=false")
	case ContenderBuiltinGateOn:
		return append(append([]string{"bench-builtin-controller"}, common...), "--max-unavailable-gate=true")
	default:
		return append(append([]string{"bench-floor"}, common...), "--stats-file", statsFile)
	}
}
