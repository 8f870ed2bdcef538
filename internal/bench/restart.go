package bench

import (
	"context"
	"fmt"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/child"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// measureRestart kills the contender (SIGKILL, as a crash or a lost node
// would), scales every set up by one while it is down, starts it again
// with launch and times, from that start, its first pod write, the end
// state and its rest. *proc becomes the restarted process, so the
// harness's liveness check and the run's cleanup follow it.
func measureRestart(ctx context.Context, cfg Config, h *harness, proc **child.Process, launch func() (*child.Process, error), poll time.Duration) (*Restart, error) {
	_ = (*proc).Stop(syscall.SIGKILL, 10*time.Second)
	if err := scaleEachByOne(ctx, h); err != nil {
		return nil, err
	}
	list, err := timePodList(ctx, h)
	if err != nil {
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
	sample, err := readProc(np.Pid())
	if err != nil {
		return nil, err
	}
	return &Restart{
		FirstActionSeconds: first.Sub(began).Seconds(),
		ConvergedSeconds:   converged.Seconds(),
		RestSeconds:        rest.Sub(began).Seconds(),
		RestPollSeconds:    poll.Seconds(),
		PodListSeconds:     list.Seconds(),
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

// timePodList times one list of the namespace's pods as a controller's
// informer makes it at start (protobuf, from the API server's cache): the
// part of a restart no controller can skip.
func timePodList(ctx context.Context, h *harness) (time.Duration, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", h.kubeconfig)
	if err != nil {
		return 0, fmt.Errorf("loading kubeconfig %s: %w", h.kubeconfig, err)
	}
	kubeclient.UseProtobuf(cfg)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, fmt.Errorf("building client: %w", err)
	}
	began := time.Now()
	if _, err := c.CoreV1().Pods(h.namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"}); err != nil {
		return 0, fmt.Errorf("listing pods: %w", err)
	}
	return time.Since(began), nil
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
