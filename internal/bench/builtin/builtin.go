// Package builtin runs upstream's StatefulSet controller
// (k8s.io/kubernetes/pkg/controller/statefulset) alone in this process, wired
// the way kube-controller-manager wires it, for benchmarks and for the chaos
// suite's hand-overs between it and Ordinal.
package builtin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/statefulset"
	"k8s.io/kubernetes/pkg/features"
)

// minResync is kube-controller-manager's default --min-resync-period; its
// informers resync at a random period between it and twice it.
const minResync = 12 * time.Hour

// ProtobufContentType is kube-controller-manager's default
// --kube-api-content-type.
const ProtobufContentType = "application/vnd.kubernetes.protobuf"

// Options configure Run.
type Options struct {
	Workers int
	// MaxUnavailableGate sets feature gate MaxUnavailableStatefulSet in this
	// process (1.37 ships it on, 1.35.4 to 1.36 off).
	MaxUnavailableGate bool
	// Namespace limits the controller to the StatefulSets, pods, claims and
	// revisions of one namespace; empty means all, as in
	// kube-controller-manager.
	Namespace string
}

// Run runs the controller with restConfig until ctx ends. The caller sets
// QPS, burst and content type on restConfig.
func Run(ctx context.Context, restConfig *rest.Config, opts Options) error {
	if err := feature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.MaxUnavailableStatefulSet): opts.MaxUnavailableGate,
	}); err != nil {
		return fmt.Errorf("setting feature gate: %w", err)
	}
	cfg := rest.CopyConfig(restConfig)
	cfg.UserAgent = "kube-controller-manager/statefulset-controller"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building client: %w", err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("cannot reach the API server at %s: %w", cfg.Host, err)
	}
	resync := time.Duration(float64(minResync) * (1 + rand.Float64()))
	f := informers.NewSharedInformerFactoryWithOptions(client, resync,
		informers.WithTransform(trimManagedFields), informers.WithNamespace(opts.Namespace))
	ssc := statefulset.NewStatefulSetController(ctx,
		f.Core().V1().Pods(), f.Apps().V1().StatefulSets(),
		f.Core().V1().PersistentVolumeClaims(), f.Apps().V1().ControllerRevisions(), client)
	f.Start(ctx.Done())
	defer f.Shutdown()
	ssc.Run(ctx, opts.Workers)
	return nil
}

// trimManagedFields is kube-controller-manager's transform for its shared
// informers: managed fields never enter the cache.
func trimManagedFields(obj any) (any, error) {
	if acc, err := meta.Accessor(obj); err == nil && acc.GetManagedFields() != nil {
		acc.SetManagedFields(nil)
	}
	return obj, nil
}
