package play

import (
	"context"
	"fmt"
	"slices"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/features"

	"github.com/ordinal-sh/ordinal/internal/bench/builtin"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// Contender is a controller a change is played under, and the kind the
// set has under it.
type Contender struct {
	// Key is how --controllers names it; Name how the forecast does.
	Key, Name string
	Kind      setops.Kind
	// run runs the controller for one namespace until ctx ends, its
	// client built from rc.
	run func(ctx context.Context, rc *rest.Config, ns string, s *Stage) error
}

// Contenders are every controller a rehearsal knows, in the order it
// plays them.
var Contenders = []Contender{
	{Key: "builtin", Name: "built-in", Kind: setops.AppsV1, run: runBuiltin},
	{Key: "ordinal", Name: "ordinal", Kind: setops.AppsV1, run: runOrdinal},
	{Key: "extended", Name: "ordinal-extended", Kind: setops.ExtendedKind, run: runOrdinal},
}

// Pick is the contenders keys names, in play order; empty keys pick
// every contender a set of kind has: all three for an apps/v1 set, the
// built-in controller and the extended kind for an extended set.
func Pick(keys []string, kind setops.Kind) ([]Contender, error) {
	if len(keys) == 0 {
		keys = []string{"builtin", "ordinal", "extended"}
		if kind == setops.ExtendedKind {
			keys = []string{"builtin", "extended"}
		}
	}
	var out []Contender
	for _, c := range Contenders {
		if slices.Contains(keys, c.Key) {
			out = append(out, c)
		}
	}
	for _, k := range keys {
		if !slices.ContainsFunc(Contenders, func(c Contender) bool { return c.Key == k }) {
			return nil, fmt.Errorf("unknown controller %q: want builtin, ordinal or extended", k)
		}
	}
	return out, nil
}

// Names are the contenders' names, for a message.
func Names(cs []Contender) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// runBuiltin runs upstream's StatefulSet controller, wired as
// kube-controller-manager wires it, with its client limits (QPS 20, burst
// 30), uncompressed responses and workers (5), and the process's
// MaxUnavailableStatefulSet gate, which the plane's API server shares.
func runBuiltin(ctx context.Context, rc *rest.Config, ns string, _ *Stage) error {
	cfg := rest.CopyConfig(rc)
	cfg.QPS, cfg.Burst, cfg.DisableCompression = 20, 30, true
	kubeclient.UseProtobuf(cfg)
	return builtin.Run(ctx, cfg, builtin.Options{
		Workers: 5, Namespace: ns,
		MaxUnavailableGate: utilfeature.DefaultFeatureGate.Enabled(features.MaxUnavailableStatefulSet),
	})
}

// runOrdinal runs Ordinal's controller as `ordinal controller` runs it by
// default (QPS 20, burst 30, 5 workers, a cluster's hook address policy),
// limited to the namespace, reading nodes and classes, with the plane's
// socket for role probes. The copy's hooks are handshakes (shape.Disarm):
// it calls no address.
func runOrdinal(ctx context.Context, rc *rest.Config, ns string, s *Stage) error {
	ctrl := controller.NewConfig()
	ctrl.Namespace, ctrl.ReadNodes = ns, true
	ctrl.FeatureGates = map[string]bool{controller.GateRecreate: utilfeature.DefaultFeatureGate.Enabled(controller.GateRecreate)}
	ctrl.SimulatedPodsSocket = s.plane.SimulatedPodsSocket()
	cfg := rest.CopyConfig(rc)
	ctrl.Client(cfg)
	kubeclient.UseProtobuf(cfg)
	limiter := controller.Throttle(cfg)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("ordinal controller client: %w", err)
	}
	opts := ctrl.Options(limiter.Busy, cfg.Host)
	opts.StorageClasses = true
	if opts.Extended, err = kubeclient.ExtendedClient(cfg); err != nil {
		return err
	}
	return controller.Run(ctx, client, opts)
}
