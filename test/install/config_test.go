package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ordinal-sh/ordinal/internal/golden"
)

// buildConfig renders config/ with kustomize, as `kubectl apply -k
// config/` does, without needing kubectl.
func buildConfig(t *testing.T) string {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), repo(t, "config"))
	if err != nil {
		t.Fatalf("kustomize build config/: %v", err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The CRD is left out of the golden file: crd_test.go checks it is the
// generated one, byte for byte.
func TestConfigBuildsAsTheGoldenFile(t *testing.T) {
	golden.Check(t, "config.yaml", withoutCRDs(buildConfig(t)))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func schemaGK(group, kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }

// buildOverlay renders a kustomization under testdata/.
func buildOverlay(t *testing.T, dir string) string {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join("testdata", dir))
	if err != nil {
		t.Fatalf("kustomize build testdata/%s: %v", dir, err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// appsV1Rules are config/rbac.yaml's ClusterRole rules on apps/v1
// StatefulSets, as kustomize prints them.
const appsV1Rules = `- apiGroups:
  - apps
  resources:
  - statefulsets
  verbs:
  - get
  - list
  - watch
- apiGroups:
  - apps
  resources:
  - statefulsets/status
  verbs:
  - update
- apiGroups:
  - apps
  resources:
  - statefulsets/finalizers
  verbs:
  - update
`

// The component config/extended-only changes config/ in two places: the
// controller's --manage-apps-v1 becomes false, and its ClusterRole loses
// the rules on apps/v1 StatefulSets, which it then never reads or writes.
func TestTheExtendedOnlyComponentTurnsOffAppsV1AndNothingElse(t *testing.T) {
	base, overlay := buildConfig(t), buildOverlay(t, "extended-only")
	want := strings.Replace(base, "- --manage-apps-v1=true\n", "- --manage-apps-v1=false\n", 1)
	if want == base {
		t.Fatal("config/ runs the controller without --manage-apps-v1=true")
	}
	withRules := want
	want = strings.Replace(want, "name: ordinal-statefulset-controller\nrules:\n"+appsV1Rules, "name: ordinal-statefulset-controller\nrules:\n", 1)
	if want == withRules {
		t.Fatal("config/'s ClusterRole does not start with the rules on apps/v1 StatefulSets")
	}
	if diff := cmp.Diff(want, overlay); diff != "" {
		t.Errorf("config/ with the component (-config/ with the flag false +built):\n%s", diff)
	}
}
