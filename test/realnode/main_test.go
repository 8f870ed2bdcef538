package realnode

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// RequireEnv set to "require" makes a real node that cannot start a
// failure of the package rather than a reason to skip its tests.
const RequireEnv = "ORDINAL_REALNODE"

var (
	shared     *plane.Plane
	client     kubernetes.Interface
	skipReason string
)

func TestMain(m *testing.M) {
	// The rehearsal's tests run this binary as `ordinal rehearse`, which
	// starts a plane of its own: a second, separate plane.
	planetest.ExecMain(root.Main)
	flag.Parse()
	release, err := planetest.OneAtATime()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run(m)
	release()
	os.Exit(code)
}

func run(m *testing.M) int {
	required := os.Getenv(RequireEnv) == "require"
	if reason := unavailable(); reason != "" {
		if required {
			fmt.Fprintf(os.Stderr, "the real node is required (%s=require) but cannot run: %s\n", RequireEnv, reason)
			return 1
		}
		skipReason = reason
		fmt.Printf("real-node tests skipped: %s\n", reason)
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "ordinal-realnode-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	planetest.QuietLogs(dir)
	cfg := planetest.Config(filepath.Join(dir, "data"))
	cfg.RealNode = true
	cfg.Nodes = 2
	// The controller is the chart's, installed below as a real pod.
	cfg.StatefulSetController = plane.ControllerNone
	cfg.Log = func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	began := time.Now()
	shared, err = plane.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the plane with a real node:", err)
		showLogs(filepath.Join(cfg.DataDir, "realnode", "logs"))
		return 1
	}
	defer func() {
		if err := shared.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing the plane:", err)
		}
	}()
	fmt.Printf("plane with a real node ready in %s\n", time.Since(began).Round(time.Millisecond))
	client = kubernetes.NewForConfigOrDie(shared.RESTConfig())
	if err := installController(ctx, dir); err != nil {
		fmt.Fprintln(os.Stderr, "installing the controller with the chart:", err)
		showLogs(filepath.Join(cfg.DataDir, "realnode", "logs"))
		return 1
	}
	return m.Run()
}

// unavailable says why this machine cannot run a real node, or "".
func unavailable() string {
	if os.Geteuid() != 0 {
		return "a real node needs root (containerd, runc and a kubelet manage namespaces, mounts and cgroups)"
	}
	tools := realnode.DefaultTools()
	for _, b := range []string{"bin/kubelet", "bin/containerd", "bin/runc", "cni/bridge", "images/pause.tar", "images/testapp.tar"} {
		if _, err := os.Stat(filepath.Join(tools, b)); err != nil {
			return fmt.Sprintf("the tools directory %s has no %s: run hack/ensure-realnode.sh", tools, b)
		}
	}
	return ""
}

// node skips the test when the package runs without a real node.
func node(t *testing.T) *realnode.Node {
	t.Helper()
	if skipReason != "" {
		t.Skip("no real node: " + skipReason)
	}
	return shared.RealNode()
}

// showLogs prints the last lines of the real node's logs: the test's data
// directory is gone once it ends.
func showLogs(dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		raw, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		fmt.Fprintf(os.Stderr, "---- last lines of %s\n%s\n", filepath.Base(l), strings.Join(lines[max(0, len(lines)-25):], "\n"))
	}
}
