package benchcmd

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/bench/contender"
	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/plane"
)

// benchComponentQPS is the bench plane's client limit for kube-scheduler
// and kube-controller-manager: at their defaults the PV binder binds about
// 7 claims a second here and would hide every contender's speed behind it.
const benchComponentQPS = 1000

// NewPlane returns the hidden `bench-plane` command: `ordinal up` with a
// free port, no StatefulSet controller, etcd without fsync, and the
// plane's own controllers and scheduler not throttled (benchComponentQPS).
//
// --feature-gates (plane.Config's) sets gates of the plane's components
// over 1.37's defaults, among them MaxUnavailableStatefulSet on, which
// every contender's runs need, since an API server with it off drops
// spec.updateStrategy.rollingUpdate.maxUnavailable; an explicit
// MaxUnavailableStatefulSet=false turns it off.
func NewPlane() *cobra.Command {
	cfg := plane.NewConfig()
	cfg.Port, cfg.StatefulSetController = 0, plane.ControllerNone
	cfg.ComponentQPS, cfg.DNSAddress = benchComponentQPS, ""
	cmd := &cobra.Command{
		Use: "bench-plane", Hidden: true, Args: cobra.NoArgs,
		Short: "Run a control plane for one benchmark run (no StatefulSet controller, no fsync, components unthrottled)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.UnsafeNoFsync = true
			if err := cfg.Validate(); err != nil {
				return err
			}
			if err := logToFile(filepath.Join(cfg.DataDir, "components.log"), cfg.Verbosity); err != nil {
				return err
			}
			defer klog.Flush()
			p, err := plane.Start(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Ordinal is up at %s: export KUBECONFIG=%s\n", p.Server(), p.KubeconfigPath())
			var runErr error
			select {
			case <-cmd.Context().Done():
			case runErr = <-p.Err():
			}
			return errors.Join(runErr, p.Close())
		},
	}
	cfg.AddFlags(cmd.Flags())
	return cmd
}

// logToFile sends klog output to path so the terminal stays quiet.
func logToFile(path string, verbosity int) error {
	if _, err := plane.PrepareDataDir(filepath.Dir(path)); err != nil {
		return err
	}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for k, v := range map[string]string{"logtostderr": "false", "alsologtostderr": "false",
		"stderrthreshold": "FATAL", "log_file": path, "v": fmt.Sprint(verbosity)} {
		if err := fs.Set(k, v); err != nil {
			return fmt.Errorf("configuring logs: %w", err)
		}
	}
	return nil
}

// NewOrdinalDebug returns the hidden `bench-ordinal-controller` command:
// `ordinal controller` with pprof and klog verbosity, to diagnose a run. The
// benchmark itself always runs the real `ordinal controller`.
func NewOrdinalDebug() *cobra.Command {
	var pprofAddr string
	var verbosity int
	cmd := &cobra.Command{Use: "bench-ordinal-controller", Hidden: true, Args: cobra.NoArgs,
		Short: "Run `ordinal controller` with pprof and verbose logs (diagnosis)"}
	cfg := controllercmd.NewConfig()
	cfg.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&pprofAddr, "pprof-address", "", "serve net/http/pprof here (empty: off)")
	cmd.Flags().IntVar(&verbosity, "log-level", 0, "klog verbosity")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		if err := fs.Set("v", fmt.Sprint(verbosity)); err != nil {
			return err
		}
		if err := contender.ServePprof(cmd.Context(), pprofAddr); err != nil {
			return err
		}
		if err := cfg.Validate(); err != nil {
			return err
		}
		return controllercmd.Run(cmd.Context(), cfg)
	}
	return cmd
}
