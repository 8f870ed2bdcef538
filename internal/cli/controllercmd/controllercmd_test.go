package controllercmd

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/controller"
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
	if err := serveMetrics(ctx, metricsServer{address: addr}, controller.NewRegistry(), ready); err != nil {
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
	err = serveMetrics(ctx, metricsServer{address: addr}, controller.NewRegistry(), ready)
	if err == nil || !strings.Contains(err.Error(), "serving metrics on "+addr) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("serving on a busy port: %v, want an error naming %s and the busy address", err, addr)
	}
}

func TestFlagsParseAndBadValuesAreRefusedByName(t *testing.T) {
	cfg := NewConfig()
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse([]string{"--status-hold-under-load=5s", "--workers=3"}); err != nil {
		t.Fatal(err)
	}
	if cfg.StatusHold != 5*time.Second || cfg.Workers != 3 {
		t.Fatalf("parsed status hold %s and workers %d, want 5s and 3", cfg.StatusHold, cfg.Workers)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("valid flags refused: %v", err)
	}
	if NewConfig().StatusHold != controller.DefaultStatusHold {
		t.Errorf("default status hold %s, want %s", NewConfig().StatusHold, controller.DefaultStatusHold)
	}
	for flag, want := range map[string]string{
		"--status-hold-under-load=-1s": "--status-hold-under-load must not be negative",
		"--workers=0":                  "--workers must be at least 1",
		"--qps=-1":                     "--qps and --burst must not be negative",
	} {
		cfg := NewConfig()
		fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
		cfg.AddFlags(fs)
		if err := fs.Parse([]string{flag}); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", flag, err, want)
		}
	}
}

// recordingHook is a ClientHook that records what the command did with it.
type recordingHook struct {
	value     string
	installed bool
}

func (h *recordingHook) AddFlags(fs *pflag.FlagSet) { fs.StringVar(&h.value, "hook-value", "", "") }
func (h *recordingHook) Validate() error {
	if h.value == "bad" {
		return errors.New("--hook-value is bad")
	}
	return nil
}
func (h *recordingHook) Install(*rest.Config) { h.installed = true }

func TestAHookAddsItsFlagsAndItsValidationAndACommandWithoutHooksHasNeither(t *testing.T) {
	if New().Flags().Lookup("hook-value") != nil || New().Flags().Lookup("fault-rate") != nil {
		t.Fatal("the command without hooks has a hook's flag")
	}
	hook := &recordingHook{}
	cmd := New(hook)
	cmd.SetArgs([]string{"--hook-value=bad", "--kubeconfig=/nonexistent"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "--hook-value is bad") {
		t.Errorf("error %v, want the hook's validation error", err)
	}
	if hook.installed {
		t.Error("the hook was installed although validation failed")
	}
}
