package plane_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane"
)

// execMainEnv makes the test binary act as the ordinal command, so process
// tests (signals, exit codes) run without linking a second large binary.
const execMainEnv = "ORDINAL_TEST_EXEC_MAIN"

var (
	shared       *plane.Plane
	sharedClient kubernetes.Interface
	sharedDir    string
)

func TestMain(m *testing.M) {
	if os.Getenv(execMainEnv) == "1" {
		os.Exit(root.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	flag.Parse()
	os.Exit(runWithPlane(m))
}

func runWithPlane(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ordinal-plane-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	quietLogs(dir)
	sharedDir = filepath.Join(dir, "data")
	cfg := testConfig(sharedDir)
	cfg.StatefulSetController = plane.ControllerNone
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	shared, err = plane.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the shared plane:", err)
		return 1
	}
	fmt.Printf("shared plane ready in %s\n", time.Since(began).Round(time.Millisecond))
	defer shared.Close()
	sharedClient = kubernetes.NewForConfigOrDie(shared.RESTConfig())
	return m.Run()
}

func testConfig(dataDir string) plane.Config {
	cfg := plane.NewConfig()
	cfg.DataDir = dataDir
	cfg.Port = 0
	cfg.ReadyDelay = 200 * time.Millisecond
	cfg.UnsafeNoFsync = true
	return cfg
}

// quietLogs keeps the components' logs out of the test output.
func quietLogs(dir string) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("log_file", filepath.Join(dir, "components.log"))
}
