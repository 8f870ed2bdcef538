package controller

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// Options configure Run.
type Options struct {
	// Workers is how many sets are synced concurrently.
	Workers int
	// Namespace limits the controller to one namespace; "" means all.
	Namespace string
	// Busy, when set, reports that the client's requests queue for rate
	// limiter tokens (Limiter.Busy); the controller then defers writes
	// that can wait.
	Busy func() bool
	// StatusHold is how long a count-only status change may wait while
	// Busy (DefaultStatusHold is the commands' default); below the 1 s
	// debounce every status change waits for, it means that debounce.
	StatusHold time.Duration
	// BurstInFlight, when positive, is how many pods of one set's
	// Parallel batch are written at once; 0 writes a whole batch (up to
	// planner.MaxBatch pods) at once, as upstream does. Config.Options
	// sets it to the client's burst: more would only wait for tokens,
	// and every request of every other set would queue behind them.
	BurstInFlight int
	// CreateLimit, when positive, is the most missing pods one sync's plan
	// builds (planner.Input.CreateLimit); Config.Options sets it to
	// CreateLimit(QPS, Burst), which a sync cut short after its time budget
	// cannot exceed. 0 builds up to planner.MaxCreates.
	CreateLimit int
	// SkipAppsV1 leaves apps/v1 StatefulSets to another controller.
	SkipAppsV1 bool
	// Extended, when set, makes the controller manage the extended kind
	// too. Run leaves it out, with one log line, when the cluster does not
	// serve the kind.
	Extended *ostsclient.Client
	// StorageClasses makes a controller of one namespace read
	// StorageClasses too (its account must be allowed to list and watch
	// them cluster-wide), so that an InPlace claim update refuses a grow
	// its class does not allow before patching any claim. A controller of
	// every namespace that manages the extended kind always reads them;
	// without them the API server refuses such a patch.
	StorageClasses bool
	// Nodes makes a controller of one namespace read Nodes and
	// PersistentVolumes too (cluster-wide list and watch), so that extended
	// sets name pods on lost nodes and follow their node-failure policy,
	// and follow rollingUpdate.topology. A controller of every namespace
	// that manages the extended kind always reads them, from the first
	// sync of an extended set on (nodewatch.go); without them a set with
	// topology holds its rolling update.
	Nodes bool
	// NodeLossQuarantine is how long a host must have been lost (no node
	// carries its hostname label, or every one that does is NotReady and
	// fenced), seen so without a break, before volumes: Recreate gives up
	// the claims pinned to it; 0 is osts.DefaultNodeLossQuarantine.
	NodeLossQuarantine time.Duration
	// Release is the upstream release apps/v1 sets follow where releases
	// differ and a set does not show which (planner.Release). Run learns
	// the API server's version by discovery unless Minor is already set;
	// RecreateGateOff is the caller's (Config.FeatureGates).
	Release planner.Release
	// Metrics, when set, receives the per-set rollout gauges
	// (ordinal_statefulset_replicas, ordinal_statefulset_rollout_waiting);
	// see NewRegistry.
	Metrics prometheus.Registerer
	// Hooks say where http lifecycle hooks may call and with which
	// identity; the zero value refuses every address the hook policy
	// refuses, uses no proxy and sends no token.
	Hooks podcall.HookOptions
	// RoleProbe bounds the role probe's calls and writes over every set;
	// fields left at zero take the defaults (podcall.DefaultRoleProbeCalls, …).
	RoleProbe podcall.RoleProbeOptions
	// EvictionRequests makes the controller the eviction responder of
	// the extended kind's pods (evictionresponder.go). Run sets it by
	// discovery: on when the API server serves the EvictionRequest API
	// (lifecycle.k8s.io/v1alpha1) and the extended kind is managed.
	EvictionRequests bool
}

// Run builds the informers and the controller and runs it until ctx ends.
func Run(ctx context.Context, client kubernetes.Interface, opts Options) error {
	if opts.Workers < 1 {
		return fmt.Errorf("workers must be at least 1, got %d", opts.Workers)
	}
	if opts.BurstInFlight < 0 {
		return fmt.Errorf("burst in flight must not be negative, got %d", opts.BurstInFlight)
	}
	if opts.StatusHold < 0 {
		return fmt.Errorf("status hold must not be negative, got %s", opts.StatusHold)
	}
	if opts.Extended != nil {
		installed, err := kubeclient.ExtendedInstalled(client.Discovery())
		if err != nil {
			return err
		}
		if !installed {
			klog.FromContext(ctx).Info("The extended StatefulSet (apps.ordinal.dev/v1alpha1) is not installed in this cluster; managing apps/v1 StatefulSets only. Install its CustomResourceDefinition (config/crd) and restart to manage it too.")
			opts.Extended = nil
		}
	}
	if opts.Extended != nil {
		served, err := kubeclient.EvictionRequestsServed(client.Discovery())
		if err != nil {
			return err
		}
		opts.EvictionRequests = served
		klog.FromContext(ctx).V(1).Info("EvictionRequest API", "served", served)
	}
	if opts.Release.Minor == 0 {
		opts.Release = discoverRelease(ctx, discovery.ToServerVersionInterfaceWithContext(client.Discovery()), opts.Release)
	}
	factory := NewInformerFactory(client, opts.Namespace)
	c, err := New(client, factory, opts)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	return c.Run(ctx, opts.Workers)
}

// discoverRelease returns r with the API server's version, as discovery
// reports it. A server that does not answer, or answers with a version
// that is not 1.x.y, leaves r as it is (the newest release's behaviour),
// with a log line; a cluster older than Ordinal supports is logged too.
func discoverRelease(ctx context.Context, d discovery.ServerVersionInterfaceWithContext, r planner.Release) planner.Release {
	logger := klog.FromContext(ctx)
	info, err := d.ServerVersionWithContext(ctx)
	if err != nil {
		logger.Info("Could not read the API server's version; apps/v1 StatefulSets follow the newest upstream release where releases differ", "newest", fmt.Sprintf("1.%d", planner.NewestMinor), "err", err)
		return r
	}
	found, err := planner.ParseRelease(info.GitVersion)
	if err != nil {
		logger.Info("Unreadable API server version; apps/v1 StatefulSets follow the newest upstream release where releases differ", "newest", fmt.Sprintf("1.%d", planner.NewestMinor), "err", err)
		return r
	}
	if found.Minor < planner.OldestMinor || found.Minor > planner.NewestMinor {
		logger.Info("The API server's release is outside those Ordinal supports; the nearest one's behaviour applies", "server", info.GitVersion, "supported", fmt.Sprintf("1.%d-1.%d", planner.OldestMinor, planner.NewestMinor))
	}
	found.RecreateGateOff = r.RecreateGateOff
	logger.V(1).Info("apps/v1 StatefulSets follow the API server's release", "release", found.String())
	return found
}
