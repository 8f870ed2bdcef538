package drain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// A drain takes a node out of service for maintenance the way kubectl
// drain does, on any cluster: it cordons the node, then evicts its pods
// through the eviction subresource, so that every PodDisruptionBudget is
// honoured (or, where the API server serves them, asks each pod to go
// with an EvictionRequest: requests.go). An eviction the API server refuses for a budget (429 Too Many
// Requests) is tried again after Options.RetryInterval, and the
// drain ends when every evicted pod is gone (a pod recreated under the
// same name is another pod: its UID tells them apart), or fails at
// Options.Timeout naming the pods still there.

// DefaultEvictRetryInterval is how long a drain waits before it asks
// again for an eviction a disruption budget refused: kubectl's delay.
const DefaultEvictRetryInterval = 5 * time.Second

// Options are a drain's choices; the zero value is kubectl drain's
// defaults (no timeout, each pod's own grace period).
type Options struct {
	// Timeout bounds the whole drain; 0 waits as long as it takes.
	Timeout time.Duration
	// RetryInterval is the wait before an eviction refused by a
	// disruption budget is asked again (DefaultEvictRetryInterval if 0).
	RetryInterval time.Duration
	// GracePeriodSeconds overrides each pod's termination grace period
	// when set.
	GracePeriodSeconds *int64
	// IgnoreDaemonSets leaves DaemonSet pods on the node instead of
	// refusing the drain (their controller would recreate them there).
	IgnoreDaemonSets bool
	// DeleteEmptyDirData evicts pods with emptyDir volumes, whose data
	// is lost, instead of refusing the drain.
	DeleteEmptyDirData bool
	// Force evicts pods no controller owns, which nothing recreates,
	// instead of refusing the drain.
	Force bool
	// Out receives one line per step, as kubectl drain prints them; nil
	// prints nothing.
	Out io.Writer
	// Via is how pods are asked to go: ViaEvictions (the Eviction API, as
	// kubectl drain), ViaEvictionRequests (an EvictionRequest per pod,
	// requests.go), or ViaAuto ("" too): eviction requests where the
	// API server serves them, else evictions.
	Via string
}

// ErrDrainRefused is returned, wrapped, when a node holds pods a drain
// must not evict without a flag that says the loss is accepted.
var ErrDrainRefused = errors.New("pods that cannot be evicted without a flag")

// ErrDrainTimeout is returned, wrapped, when pods are still on the node
// at the drain's timeout.
var ErrDrainTimeout = errors.New("timed out")

// Cordon marks node name unschedulable; it is idempotent.
func Cordon(ctx context.Context, c kubernetes.Interface, name string) error {
	return setUnschedulable(ctx, c, name, true)
}

// Uncordon makes node name schedulable again; it is idempotent.
func Uncordon(ctx context.Context, c kubernetes.Interface, name string) error {
	return setUnschedulable(ctx, c, name, false)
}

func setUnschedulable(ctx context.Context, c kubernetes.Interface, name string, on bool) error {
	return conflict.Retry(func() error {
		node, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading node %s: %w", name, err)
		}
		if node.Spec.Unschedulable == on {
			return nil
		}
		node.Spec.Unschedulable = on
		_, err = c.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
		return err
	})
}

// Drain cordons node name and evicts its pods (see above). On a refusal
// (ErrDrainRefused) the node stays cordoned and no pod is evicted, as
// with kubectl drain; eviction requests asked for where they are not
// served leave the node as it was.
func Drain(ctx context.Context, c kubernetes.Interface, name string, opts Options) error {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	requests, err := useRequests(c, opts.Via)
	if err != nil {
		return fmt.Errorf("draining node %s: %w", name, err)
	}
	if err := Cordon(ctx, c, name); err != nil {
		return fmt.Errorf("cordoning node %s: %w", name, err)
	}
	fmt.Fprintf(out, "node/%s cordoned\n", name)
	pods, err := c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
	if err != nil {
		return fmt.Errorf("listing the pods of node %s: %w", name, err)
	}
	// The field selector already chose them; a client that ignores it
	// (a fake) must not make a drain evict another node's pods.
	onNode := slices.DeleteFunc(pods.Items, func(p corev1.Pod) bool { return p.Spec.NodeName != name })
	evict, err := podsToEvict(onNode, opts, out)
	if err != nil {
		return fmt.Errorf("draining node %s: %w", name, err)
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opts.Timeout, ErrDrainTimeout)
		defer cancel()
	}
	d := &drain{client: c, opts: opts, out: &syncWriter{w: out}, requests: requests}
	if err := d.all(ctx, evict); err != nil {
		return fmt.Errorf("draining node %s: %w", name, err)
	}
	fmt.Fprintf(out, "node/%s drained\n", name)
	return nil
}

// podsToEvict returns the pods a drain evicts, or ErrDrainRefused naming
// every pod that needs a flag; mirror pods, and DaemonSet pods under
// IgnoreDaemonSets, stay.
func podsToEvict(pods []corev1.Pod, opts Options, out io.Writer) ([]corev1.Pod, error) {
	var evict []corev1.Pod
	var refused []string
	for _, p := range pods {
		if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
			continue
		}
		if why := drainRefusal(&p, opts); why != "" {
			refused = append(refused, fmt.Sprintf("%s/%s (%s)", p.Namespace, p.Name, why))
			continue
		}
		if daemonSetPod(&p) {
			fmt.Fprintf(out, "ignoring DaemonSet-managed pod %s/%s\n", p.Namespace, p.Name)
			continue
		}
		evict = append(evict, p)
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrDrainRefused, strings.Join(refused, ", "))
	}
	return evict, nil
}

// drainRefusal says which flag pod p needs before a drain may evict it, or "".
// A pod that has finished loses nothing and needs none.
func drainRefusal(p *corev1.Pod, opts Options) string {
	finished := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	switch {
	case daemonSetPod(p) && !opts.IgnoreDaemonSets:
		return "DaemonSet-managed: --ignore-daemonsets leaves it"
	case metav1.GetControllerOf(p) == nil && !opts.Force && !finished:
		return "no controller recreates it: --force evicts it"
	case !finished && !opts.DeleteEmptyDirData && slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.EmptyDir != nil }):
		return "emptyDir data would be lost: --delete-emptydir-data evicts it"
	}
	return ""
}

func daemonSetPod(p *corev1.Pod) bool {
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.Kind == "DaemonSet"
}

// drain is one drain's eviction of its pods.
type drain struct {
	client kubernetes.Interface
	opts   Options
	out    io.Writer
	// requests asks pods to go through EvictionRequests.
	requests bool
}

// all evicts pods at once, each retried on its own as kubectl does, and
// waits until every one is gone; it returns every pod's error.
func (d *drain) all(ctx context.Context, pods []corev1.Pod) error {
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	for i := range pods {
		wg.Go(func() { errs[i] = d.one(ctx, &pods[i]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// one evicts pod p and waits until it is gone.
func (d *drain) one(ctx context.Context, p *corev1.Pod) error {
	if d.requests {
		return d.byRequest(ctx, p)
	}
	if err := d.evict(ctx, p); err != nil {
		return err
	}
	return d.waitGone(ctx, p)
}

// evict asks for p's eviction until it is granted or p is gone, waiting
// RetryInterval after each refusal by a disruption budget.
func (d *drain) evict(ctx context.Context, p *corev1.Pod) error {
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: d.opts.GracePeriodSeconds,
			Preconditions: &metav1.Preconditions{UID: &p.UID}}}
	fmt.Fprintf(d.out, "evicting pod %s/%s\n", p.Namespace, p.Name)
	for {
		err := d.client.PolicyV1().Evictions(p.Namespace).Evict(ctx, ev)
		switch {
		case err == nil:
			return nil
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone already, or another pod of that name (the UID
			// precondition failed): nothing of this one to evict.
			return nil
		case namespaceTerminating(err):
			// The API server takes no eviction in a namespace being
			// deleted; the namespace's deletion takes the pod: wait
			// for that, as kubectl drain does.
			fmt.Fprintf(d.out, "pod %s/%s goes with its namespace, which is being deleted\n", p.Namespace, p.Name)
			return nil
		case apierrors.IsTooManyRequests(err):
			fmt.Fprintf(d.out, "error when evicting pod %s/%s (will retry after %s): %v\n", p.Namespace, p.Name, d.retryInterval(), err)
		case ctx.Err() != nil:
			return fmt.Errorf("evicting pod %s/%s: %w", p.Namespace, p.Name, context.Cause(ctx))
		default:
			return fmt.Errorf("evicting pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		if err := sleep(ctx, d.retryInterval()); err != nil {
			return fmt.Errorf("evicting pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
}

// namespaceTerminating reports whether err is the API server refusing
// to create anything (an eviction, an eviction request) in a namespace
// that is being deleted.
func namespaceTerminating(err error) bool {
	return apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}

func (d *drain) retryInterval() time.Duration {
	if d.opts.RetryInterval > 0 {
		return d.opts.RetryInterval
	}
	return DefaultEvictRetryInterval
}

// waitGone waits until p (by its UID) no longer exists.
func (d *drain) waitGone(ctx context.Context, p *corev1.Pod) error {
	for {
		got, err := d.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && got.UID != p.UID) {
			fmt.Fprintf(d.out, "pod/%s evicted\n", p.Name)
			return nil
		}
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("waiting for pod %s/%s to go: %w", p.Namespace, p.Name, err)
		}
		if err := sleep(ctx, goneInterval); err != nil {
			return fmt.Errorf("waiting for pod %s/%s to go: %w", p.Namespace, p.Name, err)
		}
	}
}

// goneInterval is how often a drain looks whether an evicted pod is gone.
const goneInterval = 250 * time.Millisecond

// sleep waits for d, or returns the context's cause (ErrDrainTimeout at
// the drain's timeout).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// syncWriter serialises the lines of a drain's concurrent evictions.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
