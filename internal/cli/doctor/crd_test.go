package doctor

import (
	"context"
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/ordinal-sh/ordinal/config/crd"
)

// installedCRD is this binary's CRD as the API server holds it once
// Established, changed by change.
func installedCRD(t *testing.T, change func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	c, err := crd.StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(c)
	c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
		{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue, Reason: "NoConflicts"},
		{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted"},
	}
	if change != nil {
		change(c)
	}
	return c
}

func setCondition(t apiextensionsv1.CustomResourceDefinitionConditionType, status apiextensionsv1.ConditionStatus, reason, message string) func(*apiextensionsv1.CustomResourceDefinition) {
	return func(c *apiextensionsv1.CustomResourceDefinition) {
		for i := range c.Status.Conditions {
			if c.Status.Conditions[i].Type == t {
				c.Status.Conditions[i] = apiextensionsv1.CustomResourceDefinitionCondition{Type: t, Status: status, Reason: reason, Message: message}
			}
		}
	}
}

// The CRD check reads the CRD: installed, names accepted, Established,
// serving v1alpha1, and the schema this binary carries. Missing is a
// warning while Ordinal manages apps/v1 sets too, a failure when the
// extended kind is all it manages.
func TestTheCRDCheckReadsTheCRDAndItsConditions(t *testing.T) {
	for _, tc := range []struct {
		name         string
		crd          *apiextensionsv1.CustomResourceDefinition
		extendedOnly bool
		want         Status
		wantMessage  string
	}{
		{"not installed", nil, false, Warn, "not installed: the API server does not serve apps.ordinal.dev/v1alpha1 statefulsets, so only apps/v1 StatefulSets can be used"},
		{"not installed where it is all Ordinal manages", nil, true, Fail,
			"not installed: the API server does not serve apps.ordinal.dev/v1alpha1 statefulsets, the only kind Ordinal manages with --manage-apps-v1=false; " +
				"install it (the chart's crds/ or config/crd) and restart the controller"},
		{"installed and Established", installedCRD(t, nil), false, OK, "installed and Established: the API server serves apps.ordinal.dev/v1alpha1 statefulsets"},
		{"not yet Established", installedCRD(t, setCondition(apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "Installing", "the initial names have not been accepted")), false, Fail,
			"broken: CustomResourceDefinition statefulsets.apps.ordinal.dev is not Established (Installing: the initial names have not been accepted); reinstall it from the chart's crds/ or config/crd"},
		{"names refused", installedCRD(t, setCondition(apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionFalse, "ShortNamesConflict", `"osts" is already in use`)), true, Fail,
			`broken: CustomResourceDefinition statefulsets.apps.ordinal.dev has its names refused (ShortNamesConflict: "osts" is already in use); reinstall it from the chart's crds/ or config/crd`},
		{"being deleted", installedCRD(t, func(c *apiextensionsv1.CustomResourceDefinition) { c.DeletionTimestamp = new(ago(0)) }), false, Fail,
			"broken: CustomResourceDefinition statefulsets.apps.ordinal.dev is being deleted; reinstall it from the chart's crds/ or config/crd"},
		{"v1alpha1 not served", installedCRD(t, func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Served = false }), false, Fail,
			"broken: CustomResourceDefinition statefulsets.apps.ordinal.dev does not serve v1alpha1; reinstall it from the chart's crds/ or config/crd"},
		{"an older schema", installedCRD(t, func(c *apiextensionsv1.CustomResourceDefinition) {
			delete(c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties, "progressDeadlineSeconds")
		}), true, Warn, "installed and Established: the API server serves apps.ordinal.dev/v1alpha1 statefulsets, but not the CRD this ordinal carries " +
			"(Helm installs CRDs and never upgrades them): kubectl apply --server-side -f config/crd/apps.ordinal.dev_statefulsets.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDoctor(t, nil)
			if tc.crd != nil {
				d.ext = apiextensionsfake.NewClientset(tc.crd)
			}
			got := d.checkCRD(context.Background(), tc.extendedOnly)
			if got.Status != tc.want || got.Message != tc.wantMessage {
				t.Errorf("got %s %q\nwant %s %q", got.Status, got.Message, tc.want, tc.wantMessage)
			}
		})
	}
}

// A user who may not read CRDs gets discovery's answer, which every
// authenticated user may read, and is told why.
func TestTheCRDCheckFallsBackToDiscoveryWhenCRDsAreForbidden(t *testing.T) {
	d, client := fakeDoctor(t, nil)
	ext := apiextensionsfake.NewClientset()
	ext.PrependReactor("get", "customresourcedefinitions", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"},
			crd.StatefulSetName, errors.New(`User "bob" cannot get resource`))
	})
	d.ext = ext
	if got := d.checkCRD(context.Background(), false); got.Status != Warn || !strings.HasPrefix(got.Message, "not installed: ") {
		t.Errorf("without the group: %s %q, want a warning", got.Status, got.Message)
	}
	client.Discovery().(*fake.FakeDiscovery).Resources = []*metav1.APIResourceList{{GroupVersion: ExtendedGroupVersion,
		APIResources: []metav1.APIResource{{Name: "statefulsets", Namespaced: true, Kind: "StatefulSet"}}}}
	got := d.checkCRD(context.Background(), false)
	want := "installed: the API server serves apps.ordinal.dev/v1alpha1 statefulsets (from discovery: reading the CRD is forbidden: "
	if got.Status != OK || !strings.HasPrefix(got.Message, want) || !strings.Contains(got.Message, `User "bob" cannot get resource`) {
		t.Errorf("with the group: %s %q, want ok %q…", got.Status, got.Message, want)
	}
}
