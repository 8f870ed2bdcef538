// Package up implements `ordinal up`: the embedded control plane in the
// foreground, until Ctrl-C.
package up

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/dashboard"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// New returns the `up` command.
func New() *cobra.Command {
	cfg := plane.NewConfig()
	dash := dashboard.NewConfig()
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Run a real Kubernetes control plane with simulated nodes on 127.0.0.1",
		Long: `Run etcd, kube-apiserver, the controller-manager's controllers, the scheduler,
simulated nodes, a volume provisioner and a StatefulSet controller in this process,
bound to 127.0.0.1. State lives in --data-dir and survives restarts. Ctrl-C stops it.

Cluster DNS for cluster.local (Services, StatefulSet pods' stable names,
SRV, PTR) answers on --dns-address, printed once everything is up.

Component logs go to DATA_DIR/logs/ordinal-up.log. The rollout dashboard is
served on --dashboard-address (empty turns it off); its URL, with the token
it requires, is printed once everything is up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), cmd, cfg, dash)
		},
	}
	cfg.AddFlags(cmd.Flags())
	dash.AddFlags(cmd.Flags(), "dashboard-")
	return cmd
}

func run(ctx context.Context, cmd *cobra.Command, cfg plane.Config, dash dashboard.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if dash.Address != "" {
		if err := dash.Validate(); err != nil {
			return exit.Usage(err)
		}
	}
	stderr := cmd.ErrOrStderr()
	cfg.Log = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	if err := redirectLogs(cfg.DataDir, cfg.Verbosity); err != nil {
		return err
	}
	defer klog.Flush()
	p, err := plane.Start(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Ordinal is up at %s: export KUBECONFIG=%s, then kubectl get nodes (Ctrl-C stops it)\n",
		p.Server(), p.KubeconfigPath())
	d, err := startDashboard(ctx, dash, p, cmd.OutOrStdout())
	if err != nil {
		return errors.Join(err, p.Close())
	}
	if addr := p.DNSAddr(); addr != "" {
		host, port, _ := net.SplitHostPort(addr)
		fmt.Fprintf(cmd.OutOrStdout(), "Cluster DNS (cluster.local) at %s: dig @%s -p %s web-0.nginx.default.svc.cluster.local\n", addr, host, port)
	}
	if n := p.RealNode(); n != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "Real node %s (pods tolerate the taint %s): kubectl apply -f examples/real-web.yaml; its logs in %s\n",
			n.Name(), realnode.Taint, n.LogDir())
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-p.Err():
	case runErr = <-d.err():
	}
	fmt.Fprintln(stderr, "stopping…")
	began := time.Now()
	closeErr := errors.Join(d.close(), p.Close())
	fmt.Fprintf(stderr, "stopped in %s; state kept in %s\n", time.Since(began).Round(100*time.Millisecond), p.DataDir())
	if runErr != nil {
		return runErr
	}
	return closeErr
}

// served is the dashboard of `ordinal up`, or nothing when turned off.
type served struct{ s *dashboard.Server }

// startDashboard serves the dashboard against the plane, as its admin,
// and prints its URL.
func startDashboard(ctx context.Context, cfg dashboard.Config, p *plane.Plane, out io.Writer) (served, error) {
	if cfg.Address == "" {
		return served{}, nil
	}
	client, err := kubernetes.NewForConfig(p.RESTConfig())
	if err != nil {
		return served{}, fmt.Errorf("dashboard client: %w", err)
	}
	ext, err := ostsclient.NewForConfig(p.RESTConfig())
	if err != nil {
		return served{}, fmt.Errorf("dashboard client: %w", err)
	}
	s, err := dashboard.Start(ctx, cfg, client, ext)
	if err != nil {
		return served{}, err
	}
	fmt.Fprintf(out, "Dashboard: %s\n", s.URL())
	return served{s}, nil
}

func (d served) err() <-chan error {
	if d.s == nil {
		return nil
	}
	return d.s.Err()
}

func (d served) close() error {
	if d.s == nil {
		return nil
	}
	return d.s.Close()
}

// redirectLogs sends the components' klog output to a file in the data
// directory, so the terminal shows only Ordinal's own lines.
func redirectLogs(dataDir string, verbosity int) error {
	abs, err := plane.PrepareDataDir(dataDir)
	if err != nil {
		return err
	}
	dir := filepath.Join(abs, "logs")
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for k, v := range map[string]string{
		"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL",
		"log_file": filepath.Join(dir, "ordinal-up.log"), "v": strconv.Itoa(verbosity),
	} {
		if err := fs.Set(k, v); err != nil {
			return fmt.Errorf("configuring logs: %w", err)
		}
	}
	return nil
}
