package benchcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/bench/builtin"
	"github.com/ordinal-sh/ordinal/internal/bench/floor"
	"github.com/ordinal-sh/ordinal/internal/cli/controllercmd"
	"github.com/ordinal-sh/ordinal/internal/plane"
)

// NewPlane returns the hidden `bench-plane` command: `ordinal up` with a
// free port, no StatefulSet controller and etcd without fsync.
//
// --feature-gates sets gates in this process before the plane starts, so
// the in-process API server sees them: the plane's own flags leave
// MaxUnavailableStatefulSet at 1.36's default (off), and an API server with
// it off drops spec.updateStrategy.rollingUpdate.maxUnavailable.
func NewPlane() *cobra.Command {
	gates := map[string]bool{"MaxUnavailableStatefulSet": true}
	cfg := plane.NewConfig()
	cfg.Port, cfg.StatefulSetController = 0, plane.ControllerNone
	cmd := &cobra.Command{
		Use: "bench-plane", Hidden: true, Args: cobra.NoArgs,
		Short: "Run a control plane for one benchmark run (no StatefulSet controller, no fsync)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.UnsafeNoFsync = true
			if err := cfg.Validate(); err != nil {
				return err
			}
			if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
				return fmt.Errorf("--feature-gates: %w", err)
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
	cmd.Flags().Var(cliflag.NewMapStringBool(&gates), "feature-gates", "feature gates of the plane's components, A=true,B=false")
	return cmd
}

// contenderFlags are `ordinal controller`'s flags, so every contender takes
// the same command line.
func contenderFlags(fs *pflag.FlagSet) *controllercmd.Config {
	cfg := controllercmd.NewConfig()
	cfg.AddFlags(fs)
	return &cfg
}

func restConfig(cfg *controllercmd.Config, userAgent string) (*rest.Config, error) {
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

// NewBuiltinController returns the hidden `bench-builtin-controller`
// command: upstream's StatefulSet controller alone, with `ordinal
// controller`'s flags (leader election and metrics are ignored).
func NewBuiltinController() *cobra.Command {
	var gate bool
	var pprofAddr string
	contentType := builtin.ProtobufContentType
	cmd := &cobra.Command{Use: "bench-builtin-controller", Hidden: true, Args: cobra.NoArgs,
		Short: "Run upstream's StatefulSet controller alone (benchmarks)"}
	cfg := contenderFlags(cmd.Flags())
	cmd.Flags().BoolVar(&gate, "max-unavailable-gate", false, "feature gate MaxUnavailableStatefulSet (1.36 ships it off)")
	cmd.Flags().StringVar(&contentType, "content-type", contentType, "API content type (kube-controller-manager's default)")
	cmd.Flags().StringVar(&pprofAddr, "pprof-address", "", "serve net/http/pprof here (empty: off)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		rc, err := restConfig(cfg, "kube-controller-manager")
		if err != nil {
			return err
		}
		rc.ContentType = contentType
		if err := servePprof(cmd.Context(), pprofAddr); err != nil {
			return err
		}
		return builtin.Run(cmd.Context(), rc, builtin.Options{Workers: cfg.Workers, MaxUnavailableGate: gate})
	}
	return cmd
}

// NewFloor returns the hidden `bench-floor` command: the benchmark's
// physical limit, a client making only unavoidable writes.
func NewFloor() *cobra.Command {
	var statsFile, pprofAddr string
	cmd := &cobra.Command{Use: "bench-floor", Hidden: true, Args: cobra.NoArgs,
		Short: "Run the benchmark floor: only the writes a change cannot avoid"}
	cfg := contenderFlags(cmd.Flags())
	cmd.Flags().StringVar(&statsFile, "stats-file", "", "keep the count of writes issued in this file")
	cmd.Flags().StringVar(&pprofAddr, "pprof-address", "", "serve net/http/pprof here (empty: off)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		rc, err := restConfig(cfg, "ordinal-bench-floor")
		if err != nil {
			return err
		}
		if err := servePprof(cmd.Context(), pprofAddr); err != nil {
			return err
		}
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return fmt.Errorf("building client: %w", err)
		}
		f := informers.NewSharedInformerFactory(client, 0)
		fl, err := floor.New(client, f)
		if err != nil {
			return err
		}
		ctx := cmd.Context()
		f.Start(ctx.Done())
		defer f.Shutdown()
		if statsFile != "" {
			go fl.WriteStats(ctx, statsFile)
		}
		return fl.Run(ctx, cfg.Workers)
	}
	return cmd
}

func servePprof(ctx context.Context, addr string) error {
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
	cfg := contenderFlags(cmd.Flags())
	cmd.Flags().StringVar(&pprofAddr, "pprof-address", "", "serve net/http/pprof here (empty: off)")
	cmd.Flags().IntVar(&verbosity, "log-level", 0, "klog verbosity")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		if err := fs.Set("v", fmt.Sprint(verbosity)); err != nil {
			return err
		}
		if err := servePprof(cmd.Context(), pprofAddr); err != nil {
			return err
		}
		return controllercmd.Run(cmd.Context(), *cfg)
	}
	return cmd
}
