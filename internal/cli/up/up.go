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
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/dashboard"
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

Lifecycle hooks of extended sets may call loopback addresses (127.0.0.0/8,
::1), where the receivers of a rehearsal listen; a controller in a cluster
refuses them unless --hook-allow-cidrs says otherwise. --hook-allow-cidrs=
(empty) gives the plane's controller the cluster's defaults.

Component logs go to DATA_DIR/logs/ordinal-up.log. The rollout dashboard is
served on --dashboard-address (empty turns it off) as the plane's admin, or
with --dashboard-read-only as ordinal:dashboard-read-only, a user who may only
read; its URL, with the token it requires, is printed once everything is up.`,
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
	if note := hookNote(cfg); note != "" {
		fmt.Fprintln(stderr, note)
	}
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

// hookNote says which addresses lifecycle hooks may call beyond a cluster
// controller's defaults; "" when none, or when the plane runs no Ordinal
// controller.
func hookNote(cfg plane.Config) string {
	if cfg.StatefulSetController != plane.ControllerOrdinal || len(cfg.Controller.HookAllowCIDRs) == 0 {
		return ""
	}
	return fmt.Sprintf("Lifecycle hooks may call %s here, unlike in a cluster (the API server's port excepted); --hook-allow-cidrs= turns that off",
		strings.Join(cfg.Controller.HookAllowCIDRs, ", "))
}

// served is the dashboard of `ordinal up`, or nothing when turned off.
type served struct{ s *dashboard.Server }

// startDashboard serves the dashboard against the plane, as its admin or,
// read-only, as dashboard.ReadOnlyUser, and prints its URL.
func startDashboard(ctx context.Context, cfg dashboard.Config, p *plane.Plane, out io.Writer) (served, error) {
	if cfg.Address == "" {
		return served{}, nil
	}
	s, err := dashboard.StartAsAdmin(ctx, cfg, p.RESTConfig())
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
