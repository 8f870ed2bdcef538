package kubeclient

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
)

// ExtendedInstalled reports whether the API server serves the extended
// kind, apps.ordinal.dev/v1alpha1 statefulsets.
func ExtendedInstalled(d discovery.DiscoveryInterface) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion(v1alpha1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovering %s: %w", v1alpha1.SchemeGroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == v1alpha1.Resource.Resource {
			return true, nil
		}
	}
	return false, nil
}

// ExtendedClient returns the client of the extended kind for the
// controller's Options.Extended, sharing rc's rate limiter when one is
// installed.
func ExtendedClient(rc *rest.Config) (*ostsclient.Client, error) {
	c, err := ostsclient.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("extended StatefulSet client: %w", err)
	}
	return c, nil
}
