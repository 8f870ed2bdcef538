package plane

import (
	"context"
	"fmt"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"

	"github.com/ordinal-sh/ordinal/config/crd"
	"github.com/ordinal-sh/ordinal/internal/plane/crdinstall"
)

// startCRDStage installs the extended StatefulSet's CRD and waits until the
// API server serves it, so that every component started after it (the
// garbage collector's and the namespace controller's discovery, the
// StatefulSet controller) and the user's first kubectl find the kind.
// Installing is create-or-update: a plane started again on an old data
// directory gets the CRD of this binary.
func (p *Plane) startCRDStage(ctx context.Context) error {
	client, err := apiextensionsclient.NewForConfig(p.rest)
	if err != nil {
		return fmt.Errorf("apiextensions client: %w", err)
	}
	want, err := crd.StatefulSet()
	if err != nil {
		return err
	}
	return crdinstall.Ensure(ctx, client, want, stageReadyTimeout)
}
