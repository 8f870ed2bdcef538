package plane_test

import (
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// The shared plane runs no StatefulSet controller; tests that need one run
// it themselves, scoped to their namespace.
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) {
		cfg.StatefulSetController = plane.ControllerNone
		cfg.ReadyDelay = 200 * time.Millisecond
	})
}
