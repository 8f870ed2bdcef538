package controllercmd

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

func TestTheMetricsAddressServesHealthReadinessAndMetrics(t *testing.T) {
	// A free port: taken, then given back for serveMetrics.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	if err := serveMetrics(ctx, addr, ready); err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr

	if code, body := get(t, base+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	if code, _ := get(t, base+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the controller is ready = %d, want 503", code)
	}
	close(ready)
	if code, body := get(t, base+"/readyz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/readyz once ready = %d %q, want 200 ok", code, body)
	}
	code, body := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, series := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if !strings.Contains(body, "\n"+series+" ") {
			t.Errorf("/metrics has no %s", series)
		}
	}

	// The port is now ours: a second controller on it gets a clear error.
	err = serveMetrics(ctx, addr, ready)
	if err == nil || !strings.Contains(err.Error(), "serving metrics on "+addr) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("serving on a busy port: %v, want an error naming %s and the busy address", err, addr)
	}
}
