package rollout_test

import (
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// execMainEnv makes the test binary act as the ordinal command, so the
// kubectl plugin test can run it as kubectl-ordinal without building a
// second large binary.
const execMainEnv = planetest.ExecMainEnv

var (
	client     kubernetes.Interface
	kubeconfig string
)

// TestMain starts the one plane this test binary uses, with Ordinal's
// controller managing StatefulSets, or acts as the ordinal command.
func TestMain(m *testing.M) {
	planetest.ExecMain(root.Main)
	planetest.Main(m, func(cfg *plane.Config) {
		cfg.StatefulSetController = plane.ControllerOrdinal
	}, func() {
		client = planetest.Client()
		kubeconfig = planetest.Plane().KubeconfigPath()
	})
}
