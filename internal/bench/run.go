package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/child"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// benchNamespace holds every measured object; the warm-up probe lives in
// "default" so it never counts.
const benchNamespace = "bench"

// settle is how long the harness lets the system quiesce around a window
// before reading counters: the floor's stats file is rewritten every 100 ms.
const settle = 300 * time.Millisecond

// Run runs every (scenario, limit, contender) of cfg in turn, each on a
// fresh plane, and calls emit with each result as soon as it is known. A
// failed run is reported in its Result.Error and the others still run.
func Run(ctx context.Context, cfg Config, emit func(Result)) ([]Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "ordinal-bench-")
		if err != nil {
			return nil, fmt.Errorf("creating work dir: %w", err)
		}
		cfg.WorkDir = dir
		if !cfg.Keep {
			defer os.RemoveAll(dir)
		}
	}
	var out []Result
	for _, name := range cfg.Scenarios {
		sc, err := buildScenario(name, cfg.Sizes)
		if err != nil {
			return out, err
		}
		for _, l := range cfg.Limits {
			for _, c := range cfg.Contenders {
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				r := runOne(ctx, cfg, sc, c, l)
				out = append(out, r)
				if emit != nil {
					emit(r)
				}
			}
		}
	}
	return out, nil
}

func (c Config) progress(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

// runOne starts a plane and the contender, runs the scenario, stops both.
func runOne(ctx context.Context, cfg Config, sc scenario, contender string, l Limit) Result {
	r := Result{Scenario: sc.name, Contender: contender, QPS: l.QPS, Burst: l.Burst, Workers: cfg.Workers, Size: sc.size}
	dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("%s-%s-%s", sc.name, strings.ReplaceAll(QPSLabel(l.QPS, l.Burst), "/", "_"), contender))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Error = err.Error()
		return r
	}
	if !cfg.Keep {
		defer os.RemoveAll(filepath.Join(dir, "plane"))
	}
	cfg.progress("%s %s %s: starting plane in %s", sc.name, QPSLabel(l.QPS, l.Burst), contender, dir)
	if err := runOnPlane(ctx, cfg, sc, contender, l, dir, &r); err != nil {
		r.Error = err.Error()
		cfg.progress("%s %s %s: failed: %v", sc.name, QPSLabel(l.QPS, l.Burst), contender, err)
	} else {
		cfg.progress("%s %s %s: %.1fs, %d writes", sc.name, QPSLabel(l.QPS, l.Burst), contender, r.Seconds, r.APIWrites)
	}
	return r
}

func runOnPlane(ctx context.Context, cfg Config, sc scenario, contender string, l Limit, dir string, r *Result) error {
	plane, kubeconfig, err := startPlane(ctx, cfg, dir)
	if err != nil {
		return err
	}
	defer func() { _ = plane.Stop(syscall.SIGINT, 30*time.Second) }()
	client, extended, err := adminClients(kubeconfig)
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating namespace: %w", err)
	}
	statsFile := filepath.Join(dir, "floor-writes")
	command := cfg.Commands[contender]
	launch := func(logName string) (*child.Process, error) {
		return startProcess(contender, command.Binary,
			append(slices.Clone(command.Args), contenderArgs(contender, kubeconfig, statsFile, l, cfg.Workers)...),
			cfg.Env, filepath.Join(dir, logName), nil)
	}
	proc, err := launch(contender + ".log")
	if err != nil {
		return err
	}
	defer func() { _ = proc.Stop(syscall.SIGTERM, 15*time.Second) }() // the restarted one, if any
	peak, stopSampling := &anonPeak{}, make(chan struct{})
	defer close(stopSampling)
	go peak.sample(proc.Pid(), 200*time.Millisecond, stopSampling)
	alive := func() error { return errors.Join(alive(proc), alive(plane)) }
	if err := warmUp(ctx, client, alive); err != nil {
		return err
	}
	obs, err := startObserver(ctx, client, extended.Dynamic(), setResource(contender), benchNamespace)
	if err != nil {
		return err
	}
	h := &harness{client: client, kubeconfig: kubeconfig, sets: writerFor(contender, client, extended), namespace: benchNamespace, obs: obs, alive: alive,
		stepTimeout: cfg.StepTimeout, want: map[string]desiredSet{}}
	for _, st := range sc.setup {
		cfg.progress("%s %s %s: setup %s", sc.name, QPSLabel(l.QPS, l.Burst), contender, st.name)
		if _, _, err := runStep(ctx, cfg, h, st); err != nil {
			return fmt.Errorf("setup %s: %w", st.name, err)
		}
	}
	if err := measure(ctx, cfg, sc, h, proc, plane, statsFile, r); err != nil {
		return err
	}
	r.PeakAnonBytes = peak.get()
	if !sc.restart {
		return nil
	}
	cfg.progress("%s %s %s: measuring restart", sc.name, QPSLabel(l.QPS, l.Burst), contender)
	res, err := measureRestart(ctx, cfg, h, &proc, func() (*child.Process, error) { return launch(contender + "-restart.log") },
		restPoll(sc, l.QPS, l.Burst))
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	r.Restart = res
	return nil
}

// window holds the counters read at one edge of the measured window.
type window struct {
	writes    map[writeKey]int64
	proc      procSample
	plane     procSample
	events    map[string]int64
	floor     int64
	added     int64
	marks     int64
	gone      int64
	podEvents int64
	evictions map[int]int64 // the harness's own eviction requests by code
}

func readWindow(ctx context.Context, h *harness, proc, plane *child.Process, statsFile string) (window, error) {
	time.Sleep(settle)
	var w window
	var err error
	if w.writes, err = scrapeWrites(ctx, h.client); err != nil {
		return w, err
	}
	if w.proc, err = readProc(proc.Pid()); err != nil {
		return w, err
	}
	if w.plane, err = readProc(plane.Pid()); err != nil {
		return w, err
	}
	if w.events, err = controllerEvents(ctx, h.client, h.namespace); err != nil {
		return w, err
	}
	w.floor = readCount(statsFile)
	w.added, w.marks, w.gone = h.obs.counts()
	w.podEvents = h.obs.podEvents()
	if h.drain != nil {
		w.evictions = h.drain.evictor.counts.snapshot()
	}
	return w, nil
}

// measure runs the measured steps (or the idle window) between two readings.
func measure(ctx context.Context, cfg Config, sc scenario, h *harness, proc, plane *child.Process, statsFile string, r *Result) error {
	if len(sc.setup) > 0 {
		began := time.Now()
		if err := waitForRest(ctx, h, restPoll(sc, r.QPS, r.Burst)); err != nil {
			return err
		}
		r.QuietWaitSeconds = time.Since(began).Seconds()
	}
	start, err := readWindow(ctx, h, proc, plane, statsFile)
	if err != nil {
		return err
	}
	r.Load = LoadAverage()
	h.obs.record(true)
	writesEnd := start
	for i, st := range sc.measured {
		cfg.progress("%s %s %s: measuring %s", sc.name, QPSLabel(r.QPS, r.Burst), r.Contender, st.name)
		took, lastWrite, err := runStep(ctx, cfg, h, st)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		r.Phases = append(r.Phases, Phase{Name: st.name, Seconds: took.Seconds(), LastWriteSeconds: lastWrite.Seconds()})
		r.Seconds += took.Seconds()
		r.LastWriteSeconds += lastWrite.Seconds()
		if i+1 == sc.writeSteps {
			if writesEnd, err = readWindow(ctx, h, proc, plane, statsFile); err != nil {
				return err
			}
		}
	}
	if sc.idle > 0 {
		cfg.progress("%s %s %s: idling %s", sc.name, QPSLabel(r.QPS, r.Burst), r.Contender, sc.idle)
		select {
		case <-time.After(sc.idle):
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := h.alive(); err != nil {
			return err
		}
		r.Seconds = sc.idle.Seconds()
	}
	h.obs.record(false)
	end, err := readWindow(ctx, h, proc, plane, statsFile)
	if err != nil {
		return err
	}
	if sc.writeSteps == 0 {
		writesEnd = end
	}
	fill(r, sc, start, writesEnd, end, h.obs.reactions())
	if lag, ok := h.obs.statusLag(); ok && sc.idle == 0 {
		r.StatusLagMean, r.StatusLagMax = &lag.mean, &lag.peak
		if lag.hasWait {
			ms := float64(lag.wait) / float64(time.Millisecond)
			r.StatusWaitMs = &ms
		}
	}
	if sc.drain && h.drain != nil {
		fewest, _ := h.obs.fewestReady()
		granted, refused, _ := evictionsOf(start.evictions, end.evictions)
		r.Drain = &Drain{Node: h.drain.node, FewestReady: fewest, Evicted: granted, Refused: refused,
			MovedSeconds: h.drain.moved.Seconds()}
	}
	return nil
}

// fill computes the result's figures from the window's edges. The
// harness's own evictions (a drain's) are not the contender's writes, nor
// are the deletions they make.
func fill(r *Result, sc scenario, start, writesEnd, end window, reactions []time.Duration) {
	delta := diffWrites(start.writes, writesEnd.writes)
	r.PodsGone, r.PodDeleteMarks = writesEnd.gone-start.gone, writesEnd.marks-start.marks
	harnessEvicted, _, _ := evictionsOf(start.evictions, writesEnd.evictions)
	r.APIWrites, r.APIWriteErrors, r.WritesBy = sumWrites(withoutHarness(delta, start.evictions, writesEnd.evictions),
		r.PodDeleteMarks-harnessEvicted)
	r.RawWrites = rawWrites(delta)
	for name, n := range writesEnd.events {
		r.EventWrites += n - start.events[name]
	}
	r.NewPods = writesEnd.added - start.added
	if r.NewPods > 0 {
		r.WritesPerNewPod = float64(r.APIWrites) / float64(r.NewPods)
	}
	r.CPUSeconds = end.proc.CPUSeconds - start.proc.CPUSeconds
	r.PlaneCPUSeconds = end.plane.CPUSeconds - start.plane.CPUSeconds
	if r.PodEvents = end.podEvents - start.podEvents; r.PodEvents > 0 {
		r.CPUPerPodEventMs = r.CPUSeconds * 1000 / float64(r.PodEvents)
	}
	if sc.idle > 0 {
		r.CPUPerMinute = r.CPUSeconds / sc.idle.Minutes()
	}
	r.PeakRSSBytes, r.RSSBytes = end.proc.HWMBytes, end.proc.RSSBytes
	if r.Contender == ContenderFloor {
		n := writesEnd.floor - start.floor
		r.SelfCountedWrites = &n
	}
	if p50, ok := Percentile(reactions, 50); ok && sc.reactions {
		p99, _ := Percentile(reactions, 99)
		a, b := ms(p50), ms(p99)
		r.ReactionP50Ms, r.ReactionP99Ms, r.ReactionSamples = &a, &b, len(reactions)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runStep makes the step's writes and waits for its end state. It returns
// the time to the end state and the time to the last pod write seen.
func runStep(ctx context.Context, cfg Config, h *harness, st step) (took, lastWrite time.Duration, err error) {
	began := time.Now()
	if err := st.do(ctx, h); err != nil {
		return 0, 0, err
	}
	if err := h.obs.waitConverged(ctx, h.snapshotWant(), cfg.StepTimeout, h.alive); err != nil {
		return 0, 0, err
	}
	return time.Since(began), h.obs.lastWriteSince(began), nil
}

// adminClients returns the harness's clients of apps/v1 and core, and of
// the extended kind.
func adminClients(kubeconfig string) (kubernetes.Interface, *ostsclient.Client, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("loading kubeconfig %s: %w", kubeconfig, err)
	}
	rc.QPS, rc.Burst = 1000, 2000
	rc.UserAgent = "ordinal-bench"
	c, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("building client: %w", err)
	}
	ext, err := ostsclient.NewForConfig(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("building the extended kind's client: %w", err)
	}
	return c, ext, nil
}

// warmUp proves the contender reconciles: a one-replica probe set in
// "default" must get a Ready pod. The probe stays, idle, for the whole run.
func warmUp(ctx context.Context, c kubernetes.Interface, alive func() error) error {
	probe := statefulSet(setSpec{name: "probe", replicas: 1})
	if _, err := c.AppsV1().StatefulSets("default").Create(ctx, probe, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating probe set: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := alive(); err != nil {
			return false, err
		}
		pod, err := c.CoreV1().Pods("default").Get(ctx, "probe-0", metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // not created yet
		}
		return podReady(pod), nil
	})
	if err != nil {
		return fmt.Errorf("warm-up: the contender did not bring up probe-0: %w", err)
	}
	return nil
}

// quietPoll, restMinPoll and quietLimit shape waitForRest.
const (
	quietPoll   = 5 * time.Second
	restMinPoll = 2 * time.Second
	quietLimit  = 10 * time.Minute
)

// restPoll is how long the contender must make no write for waitForRest:
// for an idle scenario quietPoll, since a recorder's backlog may trickle
// out one event every few seconds; else long enough for the client's token
// bucket to refill from empty (burst/qps), and at least restMinPoll.
func restPoll(sc scenario, qps float32, burst int) time.Duration {
	if sc.idle > 0 {
		return quietPoll
	}
	poll := restMinPoll
	if qps > 0 {
		poll = max(poll, time.Duration(float64(burst)/float64(qps)*float64(time.Second))+500*time.Millisecond)
	}
	return poll
}

// waitForRest waits, after a scenario's setup, until the contender has
// written nothing the run counts (pods, claims, revisions, set status,
// events) for one poll. A controller's recorder writes its backlog (one
// event per pod created) for a while after the pods are up, and status
// changes may be held back while the client is saturated; a measured step
// that began meanwhile would start with the contender's token bucket part
// spent on the setup, and an idle window would measure that backlog
// instead of the controller at rest.
func waitForRest(ctx context.Context, h *harness, poll time.Duration) error {
	_, err := restAt(ctx, h, poll)
	return err
}

// restAt waits as waitForRest does and returns when the counted writes
// and events were first seen at their final sum: at most one poll after
// the contender's last write.
func restAt(ctx context.Context, h *harness, poll time.Duration) (time.Time, error) {
	last, lastAt := int64(-1), time.Time{}
	deadline := time.Now().Add(quietLimit)
	for {
		n, err := restCounter(ctx, h)
		if err != nil {
			return time.Time{}, err
		}
		if n == last {
			return lastAt, nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("the contender still writes after %s (%d writes and events so far)", quietLimit, n)
		}
		last, lastAt = n, time.Now()
		select {
		case <-time.After(poll):
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// restCounter sums the counted API writes and the contender's events.
func restCounter(ctx context.Context, h *harness) (int64, error) {
	events, err := controllerEvents(ctx, h.client, h.namespace)
	if err != nil {
		return 0, err
	}
	writes, err := scrapeWrites(ctx, h.client)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, c := range events {
		n += c
	}
	for _, c := range writes {
		n += c
	}
	return n, nil
}

// controllerEvents returns, per event name, how many times a StatefulSet
// controller (ours or upstream's) emitted it: each emission is one write.
func controllerEvents(ctx context.Context, c kubernetes.Interface, ns string) (map[string]int64, error) {
	list, err := c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("listing events: %w", err)
	}
	out := map[string]int64{}
	for _, e := range list.Items {
		if e.InvolvedObject.Kind != "StatefulSet" && e.InvolvedObject.Kind != "Pod" {
			continue
		}
		switch e.Source.Component {
		case "statefulset-controller", "ordinal-statefulset-controller":
			out[e.Name] = int64(max(e.Count, 1))
		}
	}
	return out, nil
}

func readCount(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}
