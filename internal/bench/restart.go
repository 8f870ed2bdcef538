package bench

import (
	"context"
	"fmt"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// measureRestart kills the contender (SIGKILL, as a crash or a lost node
// would), scales every set up by one while it is down, starts it again
// with launch and times, from that start, its first pod write, the end
// state and its rest. *proc becomes the restarted process, so the
// harness's liveness check and the run's cleanup follow it.
func measureRestart(ctx context.Context, cfg Config, h *harness, proc **process, launch func() (*process, error), poll time.Duration) (*Restart, error) {
	(*proc).stop(syscall.SIGKILL, 10*time.Second)
	if err := scaleEachByOne(ctx, h); err != nil {
		return nil, err
	}
	h.obs.record(true)
	defer h.obs.record(false)
	began := time.Now()
	np, err := launch()
	if err != nil {
		return nil, err
	}
	*proc = np
	first, err := waitFirstWrite(ctx, h, began, cfg.StepTimeout)
	if err != nil {
		return nil, err
	}
	if err := h.obs.waitConverged(ctx, h.snapshotWant(), cfg.StepTimeout, h.alive); err != nil {
		return nil, err
	}
	converged := time.Since(began)
	rest, err := restAt(ctx, h, poll)
	if err != nil {
		return nil, err
	}
	sample, err := readProc(np.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	return &Restart{
		FirstActionSeconds: first.Sub(began).Seconds(),
		ConvergedSeconds:   converged.Seconds(),
		RestSeconds:        rest.Sub(began).Seconds(),
		RestPollSeconds:    poll.Seconds(),
		CPUSeconds:         sample.CPUSeconds,
		PeakRSSBytes:       sample.HWMBytes,
	}, nil
}

// scaleEachByOne adds one replica to every set.
func scaleEachByOne(ctx context.Context, h *harness) error {
	want := h.snapshotWant()
	return mutateAll(ctx, h, func(ss *appsv1.StatefulSet, d *desiredSet) {
		if d != nil {
			d.Replicas++
		}
		if ss != nil {
			n := want[ss.Name].Replicas + 1
			ss.Spec.Replicas = &n
		}
	})
}

// waitFirstWrite waits for the first pod creation or deletion mark after
// since and returns when the harness saw it.
func waitFirstWrite(ctx context.Context, h *harness, since time.Time, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if t, ok := h.obs.firstWriteAfter(since); ok {
			return t, nil
		}
		if err := h.alive(); err != nil {
			return time.Time{}, err
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("no pod written %s after the restart", timeout)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-tick.C:
		}
	}
}
