// Package up implements `ordinal up`: the embedded control plane in the
// foreground, until Ctrl-C.
package up

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/plane"
)

// New returns the `up` command.
func New() *cobra.Command {
	cfg := plane.NewConfig()
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Run a real Kubernetes control plane with simulated nodes on 127.0.0.1",
		Long: `Run etcd, kube-apiserver, the controller-manager's controllers, the scheduler,
simulated nodes, a volume provisioner and a StatefulSet controller in this process,
bound to 127.0.0.1. State lives in --data-dir and survives restarts. Ctrl-C stops it.

Component logs go to DATA_DIR/logs/ordinal-up.log.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), cmd, cfg)
		},
	}
	cfg.AddFlags(cmd.Flags())
	return cmd
}

func run(ctx context.Context, cmd *cobra.Command, cfg plane.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
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
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-p.Err():
	}
	fmt.Fprintln(stderr, "stopping…")
	began := time.Now()
	closeErr := p.Close()
	fmt.Fprintf(stderr, "stopped in %s; state kept in %s\n", time.Since(began).Round(100*time.Millisecond), p.DataDir())
	if runErr != nil {
		return runErr
	}
	return closeErr
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
