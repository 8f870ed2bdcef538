package rehearse

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/forecast"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/learn"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/play"
	"github.com/ordinal-sh/ordinal/internal/cli/rehearse/shape"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// run reads the source, learns, plays every contender and writes the
// forecast. Steps go to stderr, the forecast to stdout.
func (o *options) run(ctx context.Context, stdout, stderr io.Writer, ref setops.Ref, ch shape.Change) error {
	say := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	src, err := o.connect()
	if err != nil {
		return err
	}
	s, err := shape.Read(ctx, src.clients, src.namespace, ref)
	if err != nil {
		return err
	}
	contenders, err := play.Pick(o.controllers, s.Kind())
	if err != nil {
		return exit.Usage(err)
	}
	f, p, err := o.prepare(s, ch, src)
	if err != nil {
		return exit.Usage(err)
	}
	say("read %s/%s in %s: %d pods, %d claims, %d budgets, %d Services, %d nodes, %d events; playing it under %s",
		f.Set.Kind, s.Set.Name, s.Namespace, len(s.Pods), len(s.Claims), len(s.Budgets), len(s.Services), len(s.Nodes), len(s.Events), play.Names(contenders))
	if f.Runs, err = o.play(ctx, p, contenders, say); err != nil {
		return err
	}
	f.Source = requestsOf(src)
	if f.Source.Writes > 0 {
		return fmt.Errorf("the rehearsal tried %d writes to the source (refused): %v", f.Source.Writes, f.Source.ByVerb)
	}
	f.Verdict = forecast.Verdict(f)
	return o.write(stdout, say, f)
}

// prepare learns the timings and makes the forecast's head and the play.
func (o *options) prepare(s *shape.Shape, ch shape.Change, src *source) (forecast.Forecast, play.Play, error) {
	timings := learn.Learn(learn.Input{Set: s.Set.Name, Template: s.Set.Spec.Template, Pods: s.Pods, Events: s.Events})
	prop, err := shape.Propose(s.Source(), ch)
	if err != nil {
		return forecast.Forecast{}, play.Play{}, err
	}
	deadline := o.progressDeadline
	if deadline == 0 {
		deadline = defaultDeadline(timings)
	}
	extDeadline := deadline
	if s.Extended != nil {
		extDeadline = time.Duration(ptrOr(s.Extended.Spec.ProgressDeadlineSeconds, 600)) * time.Second
	}
	stuck := o.stuckAfter
	if stuck == 0 {
		stuck = extDeadline + 15*time.Second
	}
	c := s.Copy(play.NodeAnnotations(), play.Provisioner)
	p := play.Play{
		Copy: c, Timings: timings, Proposal: prop, Setup: o.timeout,
		Extras: shape.Extras{OnFailure: v1alpha1.FailureRollback, ProgressDeadline: deadline},
		Limits: forecast.Limits{Stuck: stuck, Timeout: o.timeout, Rest: 3 * time.Second},
	}
	f := forecast.Forecast{
		Set: forecast.SetInfo{Context: src.context, Namespace: s.Namespace, Name: s.Set.Name, Kind: s.Kind().Resource(),
			Replicas: ptrOr(s.Set.Spec.Replicas, 1), PodManagementPolicy: string(s.Set.Spec.PodManagementPolicy),
			Strategy: string(s.Set.Spec.UpdateStrategy.Type), ServerVersion: s.ServerVersion},
		Change: prop.Words, NewRevisionFails: ch.Fails, Learned: timings,
	}
	f.Notes = append(append(append(f.Notes, s.Notes...), c.Notes...), prop.Notes...)
	if s.Extended == nil {
		f.Notes = append(f.Notes, fmt.Sprintf("the extended kind is played with onFailure: Rollback and progressDeadlineSeconds %d", int(deadline/time.Second)))
	}
	if s.Set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		f.Notes = append(f.Notes, "updateStrategy OnDelete: no controller replaces a pod on its own and the rehearsal deletes none, so each run ends stuck")
	}
	if r, err := planner.ParseRelease(s.ServerVersion); err == nil && r.Minor != planner.NewestMinor {
		f.Notes = append(f.Notes, fmt.Sprintf("the source runs Kubernetes %s; the rehearsal plays 1.%d's API server and built-in controller", s.ServerVersion, planner.NewestMinor))
	}
	return f, p, nil
}

// defaultDeadline is 3 × the slowest pod's start-up and shutdown, at
// least 30s, in whole seconds.
func defaultDeadline(t learn.Timings) time.Duration {
	slowest := t.StartUp.D() + t.Shutdown.D()
	for _, p := range t.Pods {
		slowest = max(slowest, p.StartUp.D()+p.Shutdown.D())
	}
	return max(30*time.Second, (3 * slowest).Round(time.Second))
}

func ptrOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// play starts the rehearsal's plane, builds the copy and plays each
// contender.
func (o *options) play(ctx context.Context, p play.Play, contenders []play.Contender, say func(string, ...any)) ([]forecast.Run, error) {
	dir, err := os.MkdirTemp("", "ordinal-rehearse-")
	if err != nil {
		return nil, fmt.Errorf("making the rehearsal's data directory: %w", err)
	}
	defer func() {
		if o.keep {
			say("the rehearsal plane's data and logs are in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	if err := quietLogs(filepath.Join(dir, "rehearse.log")); err != nil {
		return nil, err
	}
	defer klog.Flush()
	stage, err := play.Start(ctx, play.Options{Dir: dir, Log: say})
	if err != nil {
		return nil, err
	}
	var runs []forecast.Run
	err = stage.Prepare(ctx, p.Copy)
	for _, c := range contenders {
		if err != nil {
			break
		}
		var r forecast.Run
		if r, err = stage.Run(ctx, p, c); err == nil {
			runs = append(runs, r)
		} else {
			err = fmt.Errorf("playing the change under %s: %w", c.Name, err)
		}
	}
	return runs, errors.Join(err, stage.Close())
}

// quietLogs sends the embedded components' logs to a file.
func quietLogs(path string) error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for k, v := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL", "log_file": path} {
		if err := fs.Set(k, v); err != nil {
			return fmt.Errorf("configuring logs: %w", err)
		}
	}
	return nil
}

func requestsOf(src *source) forecast.Requests {
	reads, writes, byVerb := src.requests()
	return forecast.Requests{Reads: reads, Writes: writes, ByVerb: byVerb}
}

// write prints the forecast and saves its JSON and picture.
func (o *options) write(stdout io.Writer, say func(string, ...any), f forecast.Forecast) error {
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the forecast: %w", err)
	}
	raw = append(raw, '\n')
	if o.outputDir != "" {
		base := filepath.Join(o.outputDir, f.Set.Name+"-rehearsal")
		if err := os.WriteFile(base+".json", raw, 0o644); err != nil {
			return fmt.Errorf("saving the forecast: %w", err)
		}
		if err := os.WriteFile(base+".svg", []byte(forecast.SVG(f)), 0o644); err != nil {
			return fmt.Errorf("saving the forecast's picture: %w", err)
		}
		say("saved %s.json and %s.svg", base, base)
	}
	if o.output == "json" {
		_, err = stdout.Write(raw)
		return err
	}
	return forecast.WriteText(stdout, f)
}
