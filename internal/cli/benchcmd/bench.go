package benchcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ordinal-sh/ordinal/internal/bench"
	"github.com/ordinal-sh/ordinal/internal/bench/builtin"
	"github.com/ordinal-sh/ordinal/internal/bench/floor"
)

// options are `ordinal bench`'s flags beyond bench.Config.
type options struct {
	cfg        bench.Config
	qps        []float32
	burst      int
	json       bool
	svg        string
	scalingSVG string
	report     string
	fromJSON   string
	// contenderDir holds the contenders' binaries.
	contenderDir string
	// beforeBinary runs the before contenders (bench.WithBefore).
	beforeBinary string
	// baseline holds the recorded runs the CPU ratios are compared with,
	// and cpuShift is the move (a fraction of the recorded ratio) that is
	// flagged.
	baseline string
	cpuShift float64
}

func newOptions() *options {
	cfg := bench.NewConfig()
	o := &options{cfg: cfg, burst: cfg.Limits[0].Burst, baseline: defaultBaseline, cpuShift: bench.DefaultCPUShift}
	for _, l := range cfg.Limits {
		o.qps = append(o.qps, l.QPS)
	}
	return o
}

func (o *options) addFlags(fs *pflag.FlagSet) {
	c := &o.cfg
	fs.StringSliceVar(&c.Scenarios, "scenario", c.Scenarios, "scenarios to run: "+strings.Join(bench.ScenarioNames, ", "))
	fs.StringSliceVar(&c.Contenders, "contenders", c.Contenders, "contenders: "+strings.Join(bench.ContenderNames, ", "))
	fs.Float32SliceVar(&o.qps, "qps", o.qps, "client QPS settings to run, 0 meaning unthrottled")
	fs.IntVar(&o.burst, "burst", o.burst, "client burst of every throttled setting")
	fs.IntVar(&c.Workers, "workers", c.Workers, "contender workers (StatefulSets synced concurrently)")
	fs.Int32Var(&c.Sizes.Replicas, "replicas", 0, "replicas of the one-set scenarios (0: 1000 scale-up/down and scaling, 50 ordered, 200 maxunavailable)")
	fs.IntVar(&c.Sizes.Sets, "sets", 0, "sets in many-sets, steady-10k and scaling-sets (0: 500, 1000 and 1000)")
	fs.Int32Var(&c.Sizes.SetReplicas, "set-replicas", 0, "replicas per set in many-sets, steady-10k and scaling-sets (0: 5, 10 and 2)")
	fs.DurationVar(&c.Sizes.Idle, "idle", 0, "steady-10k's measured idle time (0: 2m)")
	fs.DurationVar(&c.Sizes.ReadyDelay, "ordered-ready-delay", 0, "ordered-rollout's pod readiness delay (0: 1s)")
	fs.DurationVar(&c.PlaneReadyDelay, "ready-delay", c.PlaneReadyDelay, "every other pod's readiness delay")
	fs.IntVar(&c.Nodes, "nodes", c.Nodes, "simulated nodes per plane")
	fs.DurationVar(&c.StepTimeout, "step-timeout", c.StepTimeout, "longest wait for one step's end state")
	fs.StringVar(&c.Binary, "binary", "", "ordinal executable to run as the plane (default: this one)")
	fs.StringVar(&o.contenderDir, "contender-dir", "", "directory holding "+bench.OrdinalBinary+", "+bench.BuiltinBinary+" and "+bench.FloorBinary+
		" (default: --binary's directory)")
	fs.StringVar(&o.beforeBinary, "before-binary", "", "another build of "+bench.OrdinalBinary+" (say a parent commit's) that the "+
		strings.Join(bench.BeforeContenders, " and ")+" contenders run, to measure a change side by side in one invocation")
	fs.StringVar(&c.WorkDir, "work-dir", "", "directory for planes and logs (default: a temporary one)")
	fs.BoolVar(&c.Keep, "keep", false, "keep plane data in --work-dir")
	fs.BoolVar(&o.json, "json", false, "print one JSON object per line per run instead of a Markdown table")
	fs.StringVar(&o.svg, "svg", "", "also write the ratio-to-floor chart to this SVG file")
	fs.StringVar(&o.scalingSVG, "scaling-svg", "", "also write the scaling scenarios' chart (CPU per pod event, peak RSS, restart to first action against pods) to this SVG file")
	fs.StringVar(&o.report, "report", "", "also write a Markdown report (machine, command, table) to this file")
	fs.StringVar(&o.fromJSON, "from-json", "", "render results saved with --json instead of running")
	fs.StringVar(&o.baseline, "baseline", o.baseline, baselineFlagHelp)
	fs.Float64Var(&o.cpuShift, "cpu-shift", o.cpuShift, "flag a CPU ratio to builtin that moved by more than this fraction of the recorded one")
}

// Register adds `bench` and its hidden helper commands to root.
func Register(root *cobra.Command) {
	root.AddCommand(New(), NewPlane(), builtin.NewCommand("bench-builtin-controller", true),
		floor.NewCommand("bench-floor", true), NewOrdinalDebug())
}

// New returns the `bench` command.
func New() *cobra.Command {
	o := newOptions()
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Compare StatefulSet controllers (ordinal, upstream's, a write floor) on fresh planes",
		Long: `Each scenario runs, for each contender and client limit, on a fresh embedded plane
with no StatefulSet controller; the contender attaches as its own process with the
same kubeconfig, QPS, burst and workers. Reports wall time to the end state, API
writes counted at the API server, CPU-seconds and peak RSS of the contender.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd.Context(), cmd) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *options) run(ctx context.Context, cmd *cobra.Command) error {
	stdout := cmd.OutOrStdout()
	m := bench.DescribeMachine()
	if o.cpuShift <= 0 {
		return fmt.Errorf("--cpu-shift must be positive, got %g", o.cpuShift)
	}
	recorded, err := o.readBaseline()
	if err != nil {
		return err
	}
	var results []bench.Result
	if o.fromJSON != "" {
		results, err = readResults(o.fromJSON)
		m.From = o.fromJSON
	} else {
		results, err = o.bench(ctx, cmd.ErrOrStderr(), stdout)
	}
	if err != nil {
		return err
	}
	m.LoadEnd, m.Finished = bench.LoadAverage(), time.Now()
	// With --json, stdout holds results only: the comparison goes to
	// stderr with the progress lines.
	compareTo := cmd.ErrOrStderr()
	if !o.json {
		if err := bench.WriteTable(stdout, results); err != nil {
			return err
		}
		if err := bench.WriteScalingTable(stdout, results); err != nil {
			return err
		}
		compareTo = stdout
	}
	if err := o.writeComparison(compareTo, results, recorded); err != nil {
		return err
	}
	return o.writeFiles(m, results, recorded)
}

func (o *options) bench(ctx context.Context, progress, stdout io.Writer) ([]bench.Result, error) {
	cfg := o.cfg
	cfg.Limits = nil
	for _, q := range o.qps {
		l := bench.Limit{QPS: q}
		if q != 0 {
			l.Burst = o.burst
		}
		cfg.Limits = append(cfg.Limits, l)
	}
	if cfg.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the ordinal executable: %w", err)
		}
		cfg.Binary = exe
	}
	if o.contenderDir == "" {
		o.contenderDir = filepath.Dir(cfg.Binary)
	}
	cfg.Commands = bench.WithBefore(bench.LeanCommands(o.contenderDir), o.beforeBinary)
	cfg.Progress = progress
	emit := func(r bench.Result) {
		if o.json {
			_ = bench.WriteJSON(stdout, []bench.Result{r})
		}
	}
	return bench.Run(ctx, cfg, emit)
}

func (o *options) writeFiles(m bench.Machine, results []bench.Result, recorded []bench.Recorded) error {
	if o.svg != "" {
		if err := writeFile(o.svg, func(w io.Writer) error { return bench.WriteSVG(w, results) }); err != nil {
			return err
		}
	}
	if o.scalingSVG != "" {
		if err := writeFile(o.scalingSVG, func(w io.Writer) error { return bench.WriteScalingSVG(w, results) }); err != nil {
			return err
		}
	}
	if o.report != "" {
		command := "ordinal " + strings.Join(os.Args[1:], " ")
		svgName := ""
		if o.svg != "" {
			svgName = relativeTo(o.report, o.svg)
		}
		return writeFile(o.report, func(w io.Writer) error {
			if err := bench.WriteReport(w, m, command, svgName, results); err != nil {
				return err
			}
			return o.writeComparison(w, results, recorded)
		})
	}
	return nil
}

func relativeTo(from, target string) string {
	rel, err := filepath.Rel(filepath.Dir(from), target)
	if err != nil {
		return target
	}
	return rel
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func readResults(path string) ([]bench.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening results: %w", err)
	}
	defer f.Close()
	return bench.ReadJSON(f)
}
