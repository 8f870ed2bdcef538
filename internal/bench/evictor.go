package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// evictor drains a node the way kubectl drain (and `ordinal node drain
// --via evictions`, internal/plane/nodes, which this room may not import)
// does: it cordons the node, evicts every pod on it at once through the
// Eviction API, so that every PodDisruptionBudget is honoured, asks again
// every retry after a budget's refusal (429), and ends when every evicted
// pod is gone; a pod recreated under the same name is another pod. Its
// client is not throttled, so the drain's own requests never wait on a
// token bucket. It counts its eviction requests by response code: they
// are the harness's, and the run takes them off the contender's writes.
type evictor struct {
	client kubernetes.Interface
	retry  time.Duration
	counts *evictionCounts
}

// evictRetry is kubectl drain's wait before it asks again for an eviction
// a budget refused.
const evictRetry = 5 * time.Second

// goneEvery is how often the drain looks whether an evicted pod is gone.
const goneEvery = 250 * time.Millisecond

// newEvictor returns an evictor whose client, built from kubeconfig, counts
// the eviction requests it makes.
func newEvictor(kubeconfig string) (*evictor, error) {
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", kubeconfig, err)
	}
	rc.QPS, rc.Burst, rc.UserAgent = 1000, 2000, "ordinal-bench-drain"
	counts := &evictionCounts{}
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return evictionCounter{next: rt, counts: counts} })
	c, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("building the drain's client: %w", err)
	}
	return &evictor{client: c, retry: evictRetry, counts: counts}, nil
}

// drain cordons node and evicts its pods (DaemonSet and mirror pods stay),
// giving up after timeout.
func (e *evictor) drain(ctx context.Context, node string, timeout time.Duration) error {
	if err := setUnschedulable(ctx, e.client, node, true); err != nil {
		return err
	}
	list, err := e.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return fmt.Errorf("listing the pods of node %s: %w", node, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, p := range list.Items {
		if p.Spec.NodeName != node || daemonOrMirror(&p) {
			continue
		}
		wg.Go(func() {
			if err := e.evictAndWait(ctx, &p); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("draining node %s: %w", node, err)
	}
	return nil
}

func daemonOrMirror(p *corev1.Pod) bool {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.Kind == "DaemonSet"
}

// evictAndWait evicts p, asking again after each refusal, and waits
// until it is gone.
func (e *evictor) evictAndWait(ctx context.Context, p *corev1.Pod) error {
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}}}
	for {
		err := e.client.PolicyV1().Evictions(p.Namespace).Evict(ctx, ev)
		if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			break // evicted, gone, or another pod of that name (its UID differs)
		}
		if !apierrors.IsTooManyRequests(err) {
			return fmt.Errorf("evicting pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		if err := sleepCtx(ctx, e.retry); err != nil {
			return fmt.Errorf("evicting pod %s/%s, refused by its budget: %w", p.Namespace, p.Name, err)
		}
	}
	for {
		got, err := e.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && got.UID != p.UID) {
			return nil
		}
		if err := sleepCtx(ctx, goneEvery); err != nil {
			return fmt.Errorf("waiting for pod %s/%s to go: %w", p.Namespace, p.Name, err)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// setUnschedulable cordons (on) or uncordons node name.
func setUnschedulable(ctx context.Context, c kubernetes.Interface, name string, on bool) error {
	err := conflict.Retry(func() error {
		node, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil || node.Spec.Unschedulable == on {
			return err
		}
		node.Spec.Unschedulable = on
		_, err = c.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("setting node %s unschedulable %v: %w", name, on, err)
	}
	return nil
}

// evictionCounter is a transport that counts, in counts, the eviction
// requests (POST …/pods/NAME/eviction) through it by response code.
type evictionCounter struct {
	next   http.RoundTripper
	counts *evictionCounts
}

func (c evictionCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/eviction") {
		c.counts.add(resp.StatusCode)
	}
	return resp, err
}

// evictionCounts are eviction requests by response code.
type evictionCounts struct {
	mu    sync.Mutex
	codes map[int]int64
}

func (c *evictionCounts) add(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.codes == nil {
		c.codes = map[int]int64{}
	}
	c.codes[code]++
}

// snapshot returns the counts so far; a nil counter has none.
func (c *evictionCounts) snapshot() map[int]int64 {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.codes)
}
