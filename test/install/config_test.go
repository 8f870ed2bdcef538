package install

import (
	"os"
	"testing"

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

func TestConfigBuildsAsTheGoldenFile(t *testing.T) {
	golden.Check(t, "config.yaml", buildConfig(t))
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
