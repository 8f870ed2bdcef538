package plane

import (
	"context"
	"fmt"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/plane/evictionrequests"
)

// GateEvictionRequests is upstream's feature gate of the EvictionRequest
// API (KEP-4563, alpha in 1.37): EvictionRequests, Evictions and
// pod.spec.evictionResponders.
const GateEvictionRequests = "EvictionRequestAPI"

// evictionRequestsOn reports whether the plane's gates turn the
// EvictionRequest API on (Config.FeatureGates, set process-wide).
func evictionRequestsOn() bool {
	return utilfeature.DefaultFeatureGate.Enabled(GateEvictionRequests)
}

// startEvictionRequestStage runs, under the EvictionRequestAPI gate, the
// eviction-request machinery upstream's 1.37 does not ship: the plane's
// own controller that runs Evictions through their responders and evicts
// when none is left (package evictionrequests). Without the gate the API
// is not served and nothing runs.
func (p *Plane) startEvictionRequestStage(ctx context.Context, client kubernetes.Interface) error {
	if !evictionRequestsOn() {
		return nil
	}
	c, err := evictionrequests.New(client)
	if err != nil {
		return fmt.Errorf("eviction request controller: %w", err)
	}
	p.goClient("eviction request controller", c.Run, ctx)
	p.cfg.logf("EvictionRequest API served (lifecycle.k8s.io/v1alpha1), with the plane's eviction request controller")
	return nil
}
