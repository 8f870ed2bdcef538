package install

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/config/crd"
)

// withoutCRDs drops the CustomResourceDefinitions from a multi-document
// YAML stream, keeping every other document as it is.
func withoutCRDs(manifest string) string {
	var kept []string
	for _, doc := range strings.Split(manifest, "\n---\n") {
		if !strings.Contains("\n"+doc, "\nkind: CustomResourceDefinition\n") {
			kept = append(kept, doc)
		}
	}
	return strings.Join(kept, "\n---\n")
}

// crdsIn returns the CustomResourceDefinitions of a manifest as JSON-like
// maps, by name.
func crdsIn(t *testing.T, manifest string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, o := range objects(t, manifest) {
		if o.GetKind() == "CustomResourceDefinition" {
			out[o.GetName()] = o.Object
		}
	}
	return out
}

// Installed with the chart (Helm applies its crds/ first) or with config/,
// the cluster gets the extended kind's CRD the controller was built with.
func TestTheChartAndConfigInstallTheExtendedKindsCRD(t *testing.T) {
	var want map[string]any
	if err := yaml.Unmarshal(crd.StatefulSetYAML(), &want); err != nil {
		t.Fatal(err)
	}
	for name, manifest := range map[string]string{
		"config/":                          buildConfig(t),
		"the chart":                        release{name: "ordinal", namespace: "ordinal-system", crds: true}.mustRender(t),
		"the chart watching one namespace": release{name: "ordinal", namespace: "ordinal-system", crds: true, values: "watchNamespace: apps\n"}.mustRender(t),
	} {
		t.Run(name, func(t *testing.T) {
			got := crdsIn(t, manifest)
			if len(got) != 1 {
				t.Fatalf("%d CustomResourceDefinitions, want only %s", len(got), crd.StatefulSetName)
			}
			if diff := cmp.Diff(want, got[crd.StatefulSetName]); diff != "" {
				t.Errorf("CRD %s (-config/crd +rendered):\n%s", crd.StatefulSetName, diff)
			}
		})
	}
}

// Without --include-crds the chart renders no CRD, so the golden files of
// its templates do not repeat it.
func TestTheChartsTemplatesHoldNoCRD(t *testing.T) {
	if got := crdsIn(t, releases["default"].mustRender(t)); len(got) != 0 {
		t.Errorf("the chart's templates render CRDs %v; they belong in crds/ alone", got)
	}
}
