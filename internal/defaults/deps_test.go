package defaults

import (
	"os/exec"
	"strings"
	"testing"
)

// The controller and the binaries built from it link this package, so it
// must reach none of Kubernetes' server code: its tests compare it with
// k8s.io/kubernetes, the package itself only follows it.
func TestThePackageLinksNoServerCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps printed %d packages, expected the dozens of k8s.io/api: %q", len(deps), out)
	}
	for _, pkg := range deps {
		for _, banned := range []string{"k8s.io/kubernetes/", "k8s.io/apiserver/", "k8s.io/component-helpers/"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("the package links %s", pkg)
			}
		}
	}
}

// Its own imports are the API types, apimachinery and k8s.io/utils, as a
// controller package's are.
func TestThePackageImportsOnlyAPITypesAndUtilities(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(strings.SplitN(pkg, "/", 2)[0], ".") &&
			!strings.HasPrefix(pkg, "k8s.io/api/") && !strings.HasPrefix(pkg, "k8s.io/apimachinery/") && !strings.HasPrefix(pkg, "k8s.io/utils/") {
			t.Errorf("the package imports %s", pkg)
		}
	}
}
