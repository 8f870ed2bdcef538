// Package contender holds what every benchmark contender's command shares:
// `ordinal controller`'s flags, so the harness gives each contender the same
// command line, a client configuration from them, and an optional pprof
// endpoint. It stays free of the control plane so that each contender can be
// its own small binary.
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
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
)

// Flags binds `ordinal controller`'s flags to fs. Contenders other than
// Ordinal ignore leader election and metrics.
func Flags(fs *pflag.FlagSet) *controllercmd.Config {
	cfg := controllercmd.NewConfig()
	cfg.AddFlags(fs)
	return &cfg
}

// RESTConfig loads cfg's kubeconfig (required) with its QPS and burst.
func RESTConfig(cfg *controllercmd.Config, userAgent string) (*rest.Config, error) {
	if cfg.Kubeconfig == "" {
		return nil, errors.New("--kubeconfig is required")
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cfg.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", cfg.Kubeconfig, err)
	}
	rc.QPS, rc.Burst, rc.UserAgent = cfg.QPS, cfg.Burst, userAgent
	return rc, nil
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
