// Package contender holds what every benchmark contender's command shares:
// the controller's flags (controller.Config), so the harness gives each
// contender the same command line as `ordinal controller`, a client
// configuration from them, and an optional pprof endpoint. It stays free
// of the control plane and the command line packages so that each
// contender can be its own small binary.
package contender

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/controller"
)

// Flags binds the controller's flags to fs, and accepts the leader
// election and metrics flags of `ordinal controller` that the harness
// passes to every contender, which contenders other than Ordinal ignore.
func Flags(fs *pflag.FlagSet) *controller.Config {
	cfg := controller.NewConfig()
	cfg.AddFlags(fs)
	fs.Bool("leader-elect", false, "ignored: a contender never elects a leader")
	fs.String("metrics-address", "", "ignored: a contender serves no metrics")
	return &cfg
}

// RESTConfig loads cfg's kubeconfig, which a contender requires so that it
// never attaches to whatever cluster $KUBECONFIG names, with its QPS and
// burst (QPS 0: unthrottled).
func RESTConfig(cfg *controller.Config, userAgent string) (*rest.Config, error) {
	if cfg.Kubeconfig == "" {
		return nil, errors.New("--kubeconfig is required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg.RESTConfig(userAgent)
}

// ServePprof serves net/http/pprof on addr until ctx ends; "" serves
// nothing.
func ServePprof(ctx context.Context, addr string) error {
	if addr == "" {
		return nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serving pprof on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	return nil
}
