package kubeclient

import (
	"fmt"

	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
)

// EvictionRequestsServed reports whether the API server serves the
// EvictionRequest API (lifecycle.k8s.io/v1alpha1 evictionrequests and
// evictions, KEP-4563): alpha in 1.37, behind the feature gate
// EvictionRequestAPI and the group version's runtime config. Where it is
// not served the API server also drops pod.spec.evictionResponders.
func EvictionRequestsServed(d discovery.DiscoveryInterface) (bool, error) {
	gv := lifecyclev1alpha1.SchemeGroupVersion.String()
	list, err := d.ServerResourcesForGroupVersion(gv)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovering %s: %w", gv, err)
	}
	found := map[string]bool{}
	for _, r := range list.APIResources {
		found[r.Name] = true
	}
	return found["evictionrequests"] && found["evictions"] && found["evictions/status"], nil
}
