package plane_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/config/crd"
	"github.com/ordinal-sh/ordinal/internal/plane/crdinstall"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

func established(c *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextensionsv1.Established {
			return cond.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func TestThePlaneServesTheExtendedStatefulSetOnceStarted(t *testing.T) {
	client := apiextensionsclient.NewForConfigOrDie(planetest.Plane().RESTConfig())
	got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.StatefulSetName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !established(got) {
		t.Errorf("the CRD is not Established: %+v", got.Status.Conditions)
	}
	kubectl := planetest.KubectlOrSkip(t)
	// A namespace no test uses: other tests of the package make sets of
	// their own at the same time, so -A would list theirs.
	const empty = "crd-served-nothing-here"
	out, err := exec.Command(kubectl, "--kubeconfig", planetest.Plane().KubeconfigPath(), "get", "osts", "-n", empty).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "No resources found in "+empty) {
		t.Errorf("kubectl get osts -n %s: %v\n%s", empty, err, out)
	}
}

// A plane started on an older data directory finds the CRD of an older
// binary; installing replaces its spec with this binary's.
func TestInstallingTheCRDAgainRestoresItsSpec(t *testing.T) {
	ctx := context.Background()
	client := apiextensionsclient.NewForConfigOrDie(planetest.Plane().RESTConfig())
	crds := client.ApiextensionsV1().CustomResourceDefinitions()
	old, err := crds.Get(ctx, crd.StatefulSetName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old.Spec.Versions[0].AdditionalPrinterColumns = old.Spec.Versions[0].AdditionalPrinterColumns[:1]
	if _, err := crds.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := crd.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	if err := crdinstall.Ensure(ctx, client, want, time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := crds.Get(ctx, crd.StatefulSetName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantColumns, gotColumns := want.Spec.Versions[0].AdditionalPrinterColumns, got.Spec.Versions[0].AdditionalPrinterColumns
	if diff := cmp.Diff(wantColumns, gotColumns); diff != "" {
		t.Errorf("printer columns after installing again (-want +got):\n%s", diff)
	}
}
