package alongside

import (
	"testing"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// TestMain starts the package's plane with the built-in StatefulSet
// controller, as a managed cluster's kube-controller-manager runs it; the
// test runs Ordinal's itself.
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) { cfg.StatefulSetController = plane.ControllerBuiltin })
}
