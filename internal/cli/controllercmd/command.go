package controllercmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// New returns the `controller` command; hooks add their flags to it and
// change its client (see ClientHook).
func New(hooks ...ClientHook) *cobra.Command {
	cfg := NewConfig()
	cfg.Hooks = hooks
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run Ordinal's StatefulSet controller against a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cfg.Validate(); err != nil {
				return err
			}
			return Run(cmd.Context(), cfg)
		},
	}
	cfg.AddFlags(cmd.Flags())
	return cmd
}

// Run runs the controller until ctx ends; with leader election it runs the
// controller only while it leads, and returns when leadership is lost so a
// supervisor restarts it with a clean cache.
func Run(ctx context.Context, cfg Config) error {
	restConfig, err := cfg.RESTConfig("ordinal-controller")
	if err != nil {
		return err
	}
	kubeclient.UseProtobuf(restConfig)
	limiter := controller.Throttle(restConfig)
	for _, h := range cfg.Hooks {
		h.Install(restConfig)
	}
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("building client: %w", err)
	}
	leaseClient, err := newLeaseClient(restConfig)
	if err != nil {
		return err
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("cannot reach the API server at %s: %w", restConfig.Host, err)
	}
	opts := cfg.Options(limiter.Busy, restConfig.Host)
	if opts.Extended, err = kubeclient.ExtendedClient(restConfig); err != nil {
		return err
	}
	ready := make(chan struct{})
	if cfg.MetricsAddress != "" {
		m, err := newMetricsServer(cfg, restConfig)
		if err != nil {
			return err
		}
		reg := controller.NewRegistry()
		opts.Metrics = reg
		if err := serveMetrics(ctx, m, reg, ready); err != nil {
			return err
		}
	}
	if !cfg.LeaderElect {
		close(ready)
		return controller.Run(ctx, client, opts)
	}
	return leadAndRun(ctx, client, leaseClient, cfg, opts, ready)
}

// newLeaseClient gives the lease its own client and token bucket, as
// kube-controller-manager's leader election does: renewals must never
// queue behind a burst of pod writes for longer than the renew deadline.
func newLeaseClient(restConfig *rest.Config) (kubernetes.Interface, error) {
	leaseConfig := rest.CopyConfig(restConfig)
	leaseConfig.RateLimiter, leaseConfig.QPS, leaseConfig.Burst = nil, 5, 10
	leaseConfig.UserAgent = "ordinal-controller/leader-election"
	leaseClient, err := kubernetes.NewForConfig(leaseConfig)
	if err != nil {
		return nil, fmt.Errorf("building lease client: %w", err)
	}
	return leaseClient, nil
}

func leadAndRun(ctx context.Context, client, leaseClient kubernetes.Interface, cfg Config, opts controller.Options, ready chan struct{}) error {
	host, _ := os.Hostname()
	id := host + "_" + string(uuid.NewUUID())
	lock, err := resourcelock.NewWithLabels(resourcelock.LeasesResourceLock, cfg.LeaseNamespace, cfg.LeaseName,
		leaseClient.CoreV1(), leaseClient.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id}, leaseLabels(cfg))
	if err != nil {
		return fmt.Errorf("building lease lock: %w", err)
	}
	close(ready)
	var runErr error
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { runErr = controller.Run(ctx, client, opts) },
			OnStoppedLeading: func() { klog.FromContext(ctx).Info("Leadership lost or released", "identity", id) },
		},
	})
	if ctx.Err() == nil && runErr == nil {
		runErr = errors.New("lost the leader lease")
	}
	return runErr
}

// leaseLabels are the labels the leader keeps on its Lease.
func leaseLabels(cfg Config) map[string]string {
	return map[string]string{v1alpha1.LeaseLabelManageAppsV1: strconv.FormatBool(cfg.AppsV1)}
}
