package install

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helmModule is the pinned Helm CLI. It runs from its own module, with
// `go run`, so its Kubernetes libraries (newer than ours) never enter this
// module's build; the Go build cache keeps the binary after the first run.
const helmModule = "helm.sh/helm/v4/cmd/helm@v4.3.1"

// release is one rendering of the chart.
type release struct {
	name, namespace string
	// values is a values file's YAML; empty for the defaults.
	values string
	// crds renders the chart's crds/ too, as `helm install` applies them
	// (`helm template --include-crds`).
	crds bool
}

// helm runs the pinned Helm CLI with a private home, so no state of the
// machine's own helm is read or written.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command("go", append([]string{"run", helmModule}, args...)...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// render runs `helm template` on charts/ordinal.
func (r release) render(t *testing.T) (string, error) {
	t.Helper()
	args := []string{"template", r.name, repo(t, "charts", "ordinal"), "--namespace", r.namespace}
	if r.values != "" {
		file := filepath.Join(t.TempDir(), "values.yaml")
		if err := os.WriteFile(file, []byte(r.values), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--values", file)
	}
	if r.crds {
		args = append(args, "--include-crds")
	}
	return helm(t, args...)
}

func (r release) mustRender(t *testing.T) string {
	t.Helper()
	out, err := r.render(t)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
