package nodes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Annotations the simulated pods answer role probes from (see
// RoleAnswer): AnnotationRoleAnswer is the role a pod answers (the
// election writes it under RoleAnswer; a user may too), and
// AnnotationRoleProbe=ProbeFail makes its probe answer 503,
// AnnotationRoleProbe=ProbeHang never answer.
const (
	AnnotationRoleAnswer = "sim.ordinal.dev/role-answer"
	AnnotationRoleProbe  = "sim.ordinal.dev/role-probe"
	ProbeFail            = "fail"
	ProbeHang            = "hang"
)

// ProbeSocketName is the file name of the probe socket in a plane's
// data directory.
const ProbeSocketName = "simulated-pods.sock"

// podIPIndex indexes the election's pods by address.
const podIPIndex = "podIP"

func indexPodIP(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Status.PodIP != "" {
		return []string{p.Status.PodIP}, nil
	}
	return nil, nil
}

// probes answers role probes for the simulated pods, whose addresses
// nothing routes: a controller started with the socket's path sends its
// probes for those addresses here, and the request's Host names the pod's
// address. A running pod of a simulated node answers 200 with its
// AnnotationRoleAnswer (empty without it), on any path; 503 or nothing
// with AnnotationRoleProbe. An address no such pod has gets its
// connection closed, as a pod that does not listen would.
type probes struct {
	pods cache.Indexer
}

func (pr probes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		host = h
	}
	pod := pr.pod(host)
	if pod == nil || r.Method != http.MethodGet {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	switch pod.Annotations[AnnotationRoleProbe] {
	case ProbeFail:
		http.Error(w, "simulated failure", http.StatusServiceUnavailable)
		return
	case ProbeHang:
		<-r.Context().Done()
		return
	}
	fmt.Fprintln(w, pod.Annotations[AnnotationRoleAnswer])
}

// pod is the running pod of a simulated node with address ip, or nil.
func (pr probes) pod(ip string) *corev1.Pod {
	objs, err := pr.pods.ByIndex(podIPIndex, ip)
	if err != nil {
		return nil
	}
	for _, o := range objs {
		p, ok := o.(*corev1.Pod)
		if ok && p.Status.Phase == corev1.PodRunning && strings.HasPrefix(p.Spec.NodeName, nodePrefix) {
			return p
		}
	}
	return nil
}

// serveProbes answers role probes on a Unix socket at path (mode 0600,
// a stale one replaced) until ctx ends; it returns once the socket
// listens.
func serveProbes(ctx context.Context, path string, pods cache.Indexer) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("simulated pods' probe socket: %w", err)
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("simulated pods' probe socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return fmt.Errorf("simulated pods' probe socket: %w", err)
	}
	srv := &http.Server{Handler: probes{pods: pods}, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.FromContext(ctx).Error(err, "Simulated pods' probe socket stopped")
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
		_ = os.Remove(path)
	}()
	return nil
}
