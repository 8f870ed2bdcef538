package controllercmd

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// metricsServer says how /metrics is served: plain HTTP to anyone, or
// over TLS to callers the API server authenticates and authorizes.
// /healthz and /readyz answer anyone either way: they tell only whether
// the process is up, and the kubelet's probes carry no token.
type metricsServer struct {
	address string
	// tls, when set, serves HTTPS.
	tls *tls.Config
	// auth, when set, guards /metrics.
	auth *delegatedAuth
}

// serveMetrics serves reg on /metrics, /healthz, and /readyz (200 once
// ready is closed) at m.address until ctx ends.
func serveMetrics(ctx context.Context, m metricsServer, reg prometheus.Gatherer, ready <-chan struct{}) error {
	l, err := net.Listen("tcp", m.address)
	if err != nil {
		return fmt.Errorf("serving metrics on %s: %w", m.address, err)
	}
	mux := http.NewServeMux()
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	if m.auth != nil {
		metrics = m.auth.wrap(metrics)
	}
	mux.Handle("/metrics", metrics)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-ready:
			_, _ = w.Write([]byte("ok"))
		default:
			http.Error(w, "starting", http.StatusServiceUnavailable)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, TLSConfig: m.tls}
	if m.tls != nil {
		l = tls.NewListener(l, m.tls)
	}
	go func() { _ = srv.Serve(l) }()
	go func() { <-ctx.Done(); _ = srv.Close() }()
	return nil
}

// newMetricsServer is the metrics server cfg asks for; secure serving
// asks the API server through its own client and token bucket, so a flood
// of scrapes never takes the controller's requests' tokens.
func newMetricsServer(cfg Config, restConfig *rest.Config) (metricsServer, error) {
	m := metricsServer{address: cfg.MetricsAddress}
	if !cfg.MetricsSecure {
		return m, nil
	}
	var err error
	if m.tls, err = servingTLS(cfg.MetricsCertDir); err != nil {
		return m, err
	}
	authConfig := rest.CopyConfig(restConfig)
	authConfig.RateLimiter, authConfig.QPS, authConfig.Burst = nil, 5, 10
	authConfig.UserAgent = "ordinal-controller/metrics-auth"
	client, err := kubernetes.NewForConfig(authConfig)
	if err != nil {
		return m, fmt.Errorf("building the metrics authorization client: %w", err)
	}
	m.auth = newDelegatedAuth(client)
	return m, nil
}
