package crd

import (
	_ "embed"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// StatefulSetName is the CRD's name: the resource and group of the
// extended StatefulSet.
const StatefulSetName = "statefulsets.apps.ordinal.dev"

//go:embed apps.ordinal.dev_statefulsets.yaml
var statefulSetYAML []byte

// StatefulSetYAML returns the extended StatefulSet's CRD as generated.
func StatefulSetYAML() []byte { return append([]byte(nil), statefulSetYAML...) }

// StatefulSet returns the extended StatefulSet's CRD as an object, ready to
// create or update.
func StatefulSet() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(statefulSetYAML, crd); err != nil {
		return nil, fmt.Errorf("decoding the embedded CustomResourceDefinition %s: %w", StatefulSetName, err)
	}
	if crd.Name != StatefulSetName {
		return nil, fmt.Errorf("the embedded CustomResourceDefinition is named %q, want %q", crd.Name, StatefulSetName)
	}
	return crd, nil
}
