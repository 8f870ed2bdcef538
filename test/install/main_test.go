package install

import (
	"path/filepath"
	"testing"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// TestMain starts the package's plane without a StatefulSet controller, as
// a cluster whose kube-controller-manager runs with
// --controllers=*,-statefulset-controller; tests run Ordinal's themselves.
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) { cfg.StatefulSetController = plane.ControllerNone })
}

// repo is the repository's root.
func repo(t *testing.T, elem ...string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, elem...)...)
}
