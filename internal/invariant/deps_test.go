package invariant

import (
	"os/exec"
	"strings"
	"testing"
)

// The checker judges a controller from the outside: it must not share the
// code it judges, or a bug there would be agreed with rather than caught.
func TestTheCheckerImportsNoControllerCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps printed %d packages, expected many: %q", len(deps), out)
	}
	for _, dep := range deps {
		for _, banned := range []string{"controller", "planner", "osts", "revision", "defaults"} {
			if dep == "github.com/ordinal-sh/ordinal/internal/"+banned {
				t.Errorf("the checker links %s", dep)
			}
		}
	}
}
