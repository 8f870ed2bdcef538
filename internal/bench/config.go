package bench

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ordinal-sh/ordinal/internal/controller"
)

// Contender names.
const (
	ContenderOrdinal = "ordinal"
	// ContenderOrdinalExtended is Ordinal running the same scenarios on
	// the extended kind (apps.ordinal.dev/v1alpha1).
	ContenderOrdinalExtended = "ordinal-osts"
	// ContenderOrdinalInPlace is ordinal-osts with podUpdatePolicy
	// InPlaceIfPossible: its rollouts change pods in place. It runs only
	// when asked for (--contenders), beside ordinal-osts.
	ContenderOrdinalInPlace = "ordinal-inplace"
	// ContenderOrdinalOverrides is ordinal-osts whose sets have three
	// override groups (overrideGroups): it runs only when asked for,
	// beside ordinal-osts, to compare the writes of their rollouts.
	ContenderOrdinalOverrides = "ordinal-overrides"
	// ContenderOrdinalConfig and ContenderOrdinalReload are ordinal-osts
	// whose sets mount a ConfigMap their revisions hold
	// (spec.configRevisions, apply Restart and Reload): the
	// config-rollout scenario edits it. They run only when asked for.
	ContenderOrdinalConfig = "ordinal-config"
	ContenderOrdinalReload = "ordinal-reload"
	// ContenderOrdinalBefore and ContenderOrdinalExtendedBefore are
	// ordinal and ordinal-osts run by another build of the controller
	// (--before-binary, say a parent commit's): a change's cost measured
	// side by side with this build's in the same invocation, on the same
	// machine at the same hour. They run only when asked for.
	ContenderOrdinalBefore         = "ordinal-before"
	ContenderOrdinalExtendedBefore = "ordinal-osts-before"
	// ContenderBuiltin is upstream's controller as 1.37 ships it, with the
	// MaxUnavailableStatefulSet gate on; ContenderBuiltinGateOff has the
	// gate off, as 1.35.4 to 1.36 shipped it.
	ContenderBuiltin        = "builtin"
	ContenderBuiltinGateOff = "builtin-gate-off"
	ContenderFloor          = "floor"
)

// ContenderNames lists every contender in report order.
var ContenderNames = []string{ContenderOrdinalBefore, ContenderOrdinal, ContenderOrdinalExtendedBefore, ContenderOrdinalExtended,
	ContenderOrdinalInPlace, ContenderOrdinalOverrides, ContenderOrdinalConfig, ContenderOrdinalReload, ContenderBuiltin,
	ContenderBuiltinGateOff, ContenderFloor}

// askedForOnly are the contenders that run only when --contenders names
// them.
var askedForOnly = []string{ContenderOrdinalBefore, ContenderOrdinalExtendedBefore, ContenderOrdinalInPlace,
	ContenderOrdinalOverrides, ContenderOrdinalConfig, ContenderOrdinalReload}

// BeforeContenders are the contenders run by the build --before-binary
// names.
var BeforeContenders = []string{ContenderOrdinalBefore, ContenderOrdinalExtendedBefore}

// Limit is a client QPS and burst; QPS 0 means unthrottled, as it does
// for every contender (controller.Config).
type Limit struct {
	QPS   float32
	Burst int
}

// Config is one `ordinal bench` invocation.
type Config struct {
	Scenarios  []string
	Contenders []string
	Limits     []Limit
	Workers    int
	Sizes      Sizes
	// Binary is the ordinal executable run as the plane; Commands says how
	// each contender runs; Env is added to every child's environment.
	Binary   string
	Commands map[string]Command
	Env      []string
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

// NewConfig returns the defaults: every scenario but node-drain (run only
// when asked for) and every contender at KCM's limits (QPS 20, burst 30)
// and unthrottled, 5 workers: the controller's own defaults
// (controller.NewConfig).
func NewConfig() Config {
	d := controller.NewConfig()
	return Config{
		Scenarios: slices.DeleteFunc(slices.Clone(ScenarioNames), func(s string) bool { return s == ScenarioNodeDrain }),
		Contenders: slices.DeleteFunc(slices.Clone(ContenderNames), func(c string) bool {
			return slices.Contains(askedForOnly, c)
		}),
		Limits:          []Limit{{d.QPS, d.Burst}, {0, 0}},
		Workers:         d.Workers,
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
	if n := nodeDrainNodes(c.Sizes.SetReplicas); slices.Contains(c.Scenarios, ScenarioNodeDrain) && c.Nodes < n {
		errs = append(errs, fmt.Errorf("%s needs at least %d nodes (--nodes), one per member of a set and one free, got %d",
			ScenarioNodeDrain, n, c.Nodes))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers must be at least 1, got %d", c.Workers))
	}
	if c.Binary == "" {
		errs = append(errs, errors.New("no ordinal binary"))
	}
	if _, given := c.Commands[ContenderOrdinalBefore]; given && !slices.ContainsFunc(c.Contenders, func(n string) bool { return slices.Contains(BeforeContenders, n) }) {
		errs = append(errs, fmt.Errorf("--before-binary names another build, but --contenders names neither %s", strings.Join(BeforeContenders, " nor ")))
	}
	for _, name := range c.Contenders {
		if _, ok := c.Commands[name]; !ok && slices.Contains(BeforeContenders, name) {
			errs = append(errs, fmt.Errorf("contender %s: needs --before-binary, the other build of %s to compare with", name, OrdinalBinary))
			continue
		}
		if err := c.Commands[name].check(); err != nil {
			errs = append(errs, fmt.Errorf("contender %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// WithBefore returns commands with the before contenders run by binary,
// another build of ordinal-controller; "" leaves commands as they are.
func WithBefore(commands map[string]Command, binary string) map[string]Command {
	if binary == "" {
		return commands
	}
	out := maps.Clone(commands)
	for _, name := range BeforeContenders {
		out[name] = Command{Binary: binary}
	}
	return out
}

// Command is how the harness starts one contender: an executable and the
// arguments that go before the flags every contender shares.
type Command struct {
	Binary string
	Args   []string
}

func (c Command) check() error {
	if c.Binary == "" {
		return errors.New("no command")
	}
	info, err := os.Stat(c.Binary)
	if err != nil {
		return fmt.Errorf("%w (hack/build.sh builds every contender into bin/)", err)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", c.Binary)
	}
	return nil
}

// Binaries of the contenders, as hack/build.sh names them. Each is its own
// small executable, without the embedded control plane, so its CPU and
// memory are the controller's and not the ordinal binary's.
const (
	OrdinalBinary = "ordinal-controller"
	BuiltinBinary = "ordinal-bench-builtin"
	FloorBinary   = "ordinal-bench-floor"
)

// LeanCommands runs each contender as its own binary from dir.
func LeanCommands(dir string) map[string]Command {
	at := func(name string, args ...string) Command {
		return Command{Binary: filepath.Join(dir, name), Args: args}
	}
	return map[string]Command{
		ContenderOrdinal:          at(OrdinalBinary),
		ContenderOrdinalExtended:  at(OrdinalBinary),
		ContenderOrdinalInPlace:   at(OrdinalBinary),
		ContenderOrdinalOverrides: at(OrdinalBinary),
		ContenderOrdinalConfig:    at(OrdinalBinary),
		ContenderOrdinalReload:    at(OrdinalBinary),
		ContenderBuiltin:          at(BuiltinBinary, "--max-unavailable-gate=true"),
		ContenderBuiltinGateOff:   at(BuiltinBinary, "--max-unavailable-gate=false"),
		ContenderFloor:            at(FloorBinary),
	}
}

// SelfCommands runs every contender as a subcommand of the ordinal
// executable binary: quicker to set up in tests, but each contender then
// carries the whole binary's memory.
func SelfCommands(binary string) map[string]Command {
	at := func(args ...string) Command { return Command{Binary: binary, Args: args} }
	return map[string]Command{
		ContenderOrdinal:          at("controller"),
		ContenderOrdinalExtended:  at("controller"),
		ContenderOrdinalInPlace:   at("controller"),
		ContenderOrdinalOverrides: at("controller"),
		ContenderOrdinalConfig:    at("controller"),
		ContenderOrdinalReload:    at("controller"),
		ContenderBuiltin:          at("bench-builtin-controller", "--max-unavailable-gate=true"),
		ContenderBuiltinGateOff:   at("bench-builtin-controller", "--max-unavailable-gate=false"),
		ContenderFloor:            at("bench-floor"),
	}
}

// contenderArgs is the command line, after the contender's own command,
// attaching contender to kubeconfig. The floor also writes its own count of
// writes to statsFile.
func contenderArgs(contender, kubeconfig, statsFile string, l Limit, workers int) []string {
	args := []string{"--kubeconfig", kubeconfig, "--qps", fmt.Sprint(l.QPS), "--burst", fmt.Sprint(l.Burst),
		"--workers", fmt.Sprint(workers), "--leader-elect=false", "--metrics-address="}
	if contender == ContenderFloor {
		args = append(args, "--stats-file", statsFile)
	}
	return args
}
