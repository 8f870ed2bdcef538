package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The controller's image carries this binary alone; it must never link
// Kubernetes' server code or the embedded control plane, which would
// multiply its size, start-up work and memory (the ordinal binary with the
// plane is about five times larger). Nor may it link the API fault
// injector (internal/faults): the chaos suite runs the ordinal binary's
// controller with faults, and a production controller has no way to turn
// them on. The extended StatefulSet's API types and typed client are held
// to the same rule, for the controller links them too.
func TestTheControllerBinaryLinksNoServerCode(t *testing.T) {
	for _, pkg := range []string{".", "github.com/ordinal-sh/ordinal/internal/ostsclient", "github.com/ordinal-sh/ordinal/api/v1alpha1"} {
		t.Run(pkg, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps: %v\n%s", err, out)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 100 {
				t.Fatalf("go list -deps printed %d packages, expected hundreds: %q", len(deps), out)
			}
			for _, dep := range deps {
				for _, banned := range bannedFromTheController {
					if strings.HasPrefix(dep, banned) {
						t.Errorf("%s links %s", pkg, dep)
					}
				}
			}
		})
	}
}

var bannedFromTheController = []string{"k8s.io/kubernetes/", "k8s.io/apiserver/", "go.etcd.io/etcd/server", "sigs.k8s.io/kwok/",
	"github.com/ordinal-sh/ordinal/internal/plane", "github.com/ordinal-sh/ordinal/internal/bench",
	"github.com/ordinal-sh/ordinal/internal/faults", "github.com/ordinal-sh/ordinal/internal/invariant",
	// The image builder is a build tool, not part of what it builds.
	"github.com/google/go-containerregistry/", "github.com/ordinal-sh/ordinal/internal/image"}
