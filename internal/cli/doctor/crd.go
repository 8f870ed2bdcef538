package doctor

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const checkCRDName = "extended kind CRD"

// ExtendedKind is the group/version and resource of Ordinal's own
// StatefulSet kind, which the built-in controller never touches.
const (
	ExtendedGroupVersion = "apps.ordinal.dev/v1alpha1"
	ExtendedResource     = "statefulsets"
)

// checkCRD asks discovery whether the API server serves the extended kind:
// true only once its CRD is installed and established. Discovery is open
// to every authenticated user, so no permission on CRDs is needed.
func (d *Doctor) checkCRD() Result {
	list, err := d.client.Discovery().ServerResourcesForGroupVersion(ExtendedGroupVersion)
	if apierrors.IsNotFound(err) {
		return Result{Check: checkCRDName, Status: Warn, Message: fmt.Sprintf(
			"not installed: the API server does not serve %s %s, so only apps/v1 StatefulSets can be used", ExtendedGroupVersion, ExtendedResource)}
	}
	if err != nil {
		return couldNot(checkCRDName, "reading "+ExtendedGroupVersion+" discovery", err)
	}
	for _, r := range list.APIResources {
		if r.Name == ExtendedResource {
			return Result{Check: checkCRDName, Status: OK, Message: fmt.Sprintf("installed: the API server serves %s %s", ExtendedGroupVersion, ExtendedResource)}
		}
	}
	return Result{Check: checkCRDName, Status: Fail, Message: fmt.Sprintf(
		"broken: %s is served without %s; reinstall the CRD", ExtendedGroupVersion, ExtendedResource)}
}
