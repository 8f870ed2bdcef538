package install

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// config/, the chart and the image build name one image: the repository
// hack/image.sh tags, at the VERSION file's tag.
func TestTheManifestsNameTheImageTheBuildTags(t *testing.T) {
	version := strings.TrimSpace(readFile(t, repo(t, "VERSION")))
	want := "ghcr.io/ordinal-sh/ordinal-controller:" + version
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, repo(t, "charts", "ordinal", "Chart.yaml"))), &chart); err != nil {
		t.Fatal(err)
	}
	if chart.AppVersion != version {
		t.Errorf("Chart.yaml appVersion %q, VERSION %q", chart.AppVersion, version)
	}
	for name, manifest := range map[string]string{"config/": buildConfig(t), "the chart": releases["default"].mustRender(t)} {
		if got := images(t, manifest); len(got) != 1 || got[0] != want {
			t.Errorf("%s runs %q, want [%s]", name, got, want)
		}
	}
}

// images lists the container images of the manifest's Deployments.
func images(t *testing.T, manifest string) []string {
	t.Helper()
	var out []string
	for _, o := range objects(t, manifest) {
		if o.GetKind() != "Deployment" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			image, _, _ := unstructured.NestedString(c.(map[string]any), "image")
			out = append(out, image)
		}
	}
	return out
}
