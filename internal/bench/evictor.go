package bench

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/drain"
)

// evictor drains a node the way kubectl drain and `ordinal node drain
// --via evictions` do (internal/drain): it cordons the node, evicts every
// pod on it at once through the Eviction API, so that every
// PodDisruptionBudget is honoured, asks again every retry after a
// budget's refusal (429), and ends when every evicted pod is gone. Its
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
const evictRetry = drain.DefaultEvictRetryInterval

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

// drain drains node as kubectl drain does (internal/drain, by
// evictions; DaemonSet and mirror pods stay), giving up after timeout.
func (e *evictor) drain(ctx context.Context, node string, timeout time.Duration) error {
	return drain.Drain(ctx, e.client, node, drain.Options{Timeout: timeout, RetryInterval: e.retry,
		IgnoreDaemonSets: true, DeleteEmptyDirData: true, Via: drain.ViaEvictions})
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
