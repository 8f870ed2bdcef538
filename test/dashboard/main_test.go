package dashboard_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/dashboard"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

var (
	client     kubernetes.Interface
	kubeconfig string
	server     *dashboard.Server
)

// TestMain starts the package's plane with Ordinal's controller and one
// dashboard over it, as `ordinal up` does.
func TestMain(m *testing.M) {
	planetest.Main(m, func(cfg *plane.Config) {
		cfg.StatefulSetController = plane.ControllerOrdinal
	}, func() {
		client = planetest.Client()
		kubeconfig = planetest.Plane().KubeconfigPath()
		s, err := dashboard.StartAsAdmin(context.Background(), dashboard.NewConfig(), planetest.Plane().RESTConfig())
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting the dashboard:", err)
			os.Exit(1)
		}
		server = s
	})
}
