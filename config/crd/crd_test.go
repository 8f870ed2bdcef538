package crd

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// The API server's own CRD validation, run here so that a rule over the
// CEL cost budget or a schema the server would refuse fails in seconds
// rather than at a plane's start.
func TestTheCRDPassesTheAPIServersValidationAndCELCostBudget(t *testing.T) {
	crd, err := StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
		t.Fatal(err)
	}
	for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &internal) {
		t.Errorf("%s: %s", e.Field, e.ErrorBody())
	}
}

// A client-side `kubectl apply -k config/` records the whole object in the
// last-applied-configuration annotation, and annotations may hold at most
// 256 KiB.
func TestTheCRDFitsAClientSideKubectlApply(t *testing.T) {
	crd, err := StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 256 * 1024
	t.Logf("the CRD is %d bytes of JSON, %d bytes of YAML", len(b), len(StatefulSetYAML()))
	if len(b) > limit {
		t.Errorf("the CRD is %d bytes of JSON, over the %d bytes a last-applied annotation may hold", len(b), limit)
	}
}

func TestTheCRDHasTheKindsNamesAndSubresources(t *testing.T) {
	crd, err := StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	if got := crd.Spec.Names.ShortNames; len(got) != 1 || got[0] != "osts" {
		t.Errorf("short names %v, want [osts]", got)
	}
	if len(crd.Spec.Versions) != 1 {
		t.Fatalf("%d versions, want 1", len(crd.Spec.Versions))
	}
	v := crd.Spec.Versions[0]
	if v.Name != "v1alpha1" || !v.Served || !v.Storage {
		t.Errorf("version %s served=%v storage=%v, want v1alpha1 served and stored", v.Name, v.Served, v.Storage)
	}
	if v.Subresources == nil || v.Subresources.Status == nil || v.Subresources.Scale == nil {
		t.Fatalf("subresources %+v, want status and scale", v.Subresources)
	}
	if got := v.Subresources.Scale.LabelSelectorPath; got == nil || *got != ".status.labelSelector" {
		t.Errorf("scale labelSelectorPath %v, want .status.labelSelector", got)
	}
}

// The schema's maximum of spec.replicas is the one the controller and
// its tests know as v1alpha1.MaxReplicas.
func TestTheSchemaBoundsReplicasAtMaxReplicas(t *testing.T) {
	crd, err := StatefulSet()
	if err != nil {
		t.Fatal(err)
	}
	replicas := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["replicas"]
	if replicas.Maximum == nil || *replicas.Maximum != v1alpha1.MaxReplicas {
		t.Errorf("spec.replicas maximum %v, want %d", replicas.Maximum, v1alpha1.MaxReplicas)
	}
}
