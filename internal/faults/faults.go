package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// Fault kinds, as logged and counted.
const (
	ServerError    = "500"
	TooManyRequest = "429"
	Conflict       = "409"
	TimeoutBefore  = "timeout-before-send"
	TimeoutAfter   = "timeout-after-send"
	Slow           = "slow"
	WatchRefused   = "watch-refused"
	WatchClosed    = "watch-closed"
)

// LogMessage is the constant message logged for each injected fault.
const LogMessage = "Injected API fault"

// Config says how often to inject faults.
type Config struct {
	// Rate is the probability that a request gets a fault, in [0, 1].
	Rate float64
	// Seed seeds the random source.
	Seed int64
	// MaxDelay bounds slow requests and timeouts; default 2s.
	MaxDelay time.Duration
}

// Injector is an http.RoundTripper wrapper that injects faults.
type Injector struct {
	cfg   Config
	next  http.RoundTripper
	mu    sync.Mutex
	rng   *rand.Rand
	count atomic.Int64
}

// Wrap returns a rest.Config.WrapTransport function injecting faults.
func Wrap(cfg Config) func(http.RoundTripper) http.RoundTripper {
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = 2 * time.Second
	}
	rng := rand.New(rand.NewSource(cfg.Seed))
	return func(next http.RoundTripper) http.RoundTripper {
		return &Injector{cfg: cfg, next: next, rng: rng}
	}
}

// Count returns how many faults were injected.
func (f *Injector) Count() int64 { return f.count.Load() }

func (f *Injector) roll() (float64, float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64(), f.rng.Float64()
}

// RoundTrip injects a fault with probability Rate, else passes through.
// Watches that open are closed after a random lifetime with probability
// 10*Rate, which is how a flaky network or a restarting API server drops
// them.
func (f *Injector) RoundTrip(req *http.Request) (*http.Response, error) {
	p, pick := f.roll()
	watching := isWatch(req)
	if p >= f.cfg.Rate {
		resp, err := f.next.RoundTrip(req)
		if err == nil && watching && p < f.cfg.Rate*11 && resp.StatusCode == http.StatusOK {
			f.note(WatchClosed, req)
			resp.Body = newDroppingBody(resp.Body, time.Duration(pick*float64(5*time.Second)))
		}
		return resp, err
	}
	if watching {
		if pick < 0.5 {
			f.note(WatchRefused, req)
			return statusResponse(req, http.StatusInternalServerError, metav1.StatusReasonInternalError), nil
		}
		f.note(Slow, req)
		sleep(req, f.delay(pick))
		return f.next.RoundTrip(req)
	}
	return f.inject(req, pick)
}

func (f *Injector) inject(req *http.Request, pick float64) (*http.Response, error) {
	switch {
	case pick < 0.25:
		f.note(ServerError, req)
		return statusResponse(req, http.StatusInternalServerError, metav1.StatusReasonInternalError), nil
	case pick < 0.4:
		f.note(TooManyRequest, req)
		resp := statusResponse(req, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests)
		if pick < 0.32 {
			resp.Header.Set("Retry-After", "1")
		}
		return resp, nil
	case pick < 0.5:
		f.note(Conflict, req)
		return statusResponse(req, http.StatusConflict, metav1.StatusReasonConflict), nil
	case pick < 0.6:
		f.note(TimeoutBefore, req)
		sleep(req, f.delay(pick))
		return nil, fmt.Errorf("injected: %w", errTimeout)
	case pick < 0.75:
		// The server acts, the answer is lost: the nastiest case for a
		// controller, which must not assume its write failed.
		f.note(TimeoutAfter, req)
		resp, err := f.next.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		return nil, fmt.Errorf("injected after the server answered: %w", errTimeout)
	default:
		f.note(Slow, req)
		sleep(req, f.delay(pick))
		return f.next.RoundTrip(req)
	}
}

var errTimeout = errors.New("net/http: timeout awaiting response headers")

func (f *Injector) delay(pick float64) time.Duration {
	return time.Duration(pick * float64(f.cfg.MaxDelay))
}

func (f *Injector) note(kind string, req *http.Request) {
	f.count.Add(1)
	klog.InfoS(LogMessage, "fault", kind, "verb", req.Method, "path", req.URL.Path)
}

func isWatch(req *http.Request) bool {
	w := req.URL.Query().Get("watch")
	return w == "true" || w == "1" || strings.Contains(req.URL.Path, "/watch/")
}

func sleep(req *http.Request, d time.Duration) {
	select {
	case <-req.Context().Done():
	case <-time.After(d):
	}
}

func statusResponse(req *http.Request, code int, reason metav1.StatusReason) *http.Response {
	body, _ := json.Marshal(&metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason,
		Message: fmt.Sprintf("injected fault: %d %s", code, reason),
	})
	return &http.Response{
		StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Header:  http.Header{"Content-Type": []string{"application/json"}},
		Body:    io.NopCloser(strings.NewReader(string(body))),
		Request: req, ContentLength: int64(len(body)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
}

// droppingBody closes a watch stream after a lifetime, as a dropped
// connection would (reads then fail with an unexpected EOF).
type droppingBody struct {
	io.ReadCloser
	timer *time.Timer
}

func newDroppingBody(body io.ReadCloser, after time.Duration) io.ReadCloser {
	d := &droppingBody{ReadCloser: body}
	d.timer = time.AfterFunc(after, func() { _ = body.Close() })
	return d
}

func (d *droppingBody) Close() error {
	d.timer.Stop()
	return d.ReadCloser.Close()
}
