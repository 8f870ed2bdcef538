// Package planetest starts the one embedded control plane a test package
// shares, from its TestMain. A process can run only one plane, so every
// integration test package uses this instead of starting its own.
package planetest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/internal/plane"
)

// ExecMainEnv makes a test binary act as the ordinal command, so tests can
// run `ordinal …` as a process without linking a second large binary.
const ExecMainEnv = "ORDINAL_TEST_EXEC_MAIN"

var (
	shared  *plane.Plane
	client  kubernetes.Interface
	dataDir string
)

// Plane returns the package's plane; valid inside tests after Main.
func Plane() *plane.Plane { return shared }

// Client returns an admin client of the package's plane.
func Client() kubernetes.Interface { return client }

// DataDir is the plane's data directory.
func DataDir() string { return dataDir }

// Config returns the test defaults for a plane on dataDir: free ports, fast
// simulated pods, etcd without fsync, and one node (the last) named by a
// fully qualified name unlike its hostname label, so that no test passes
// only because node names and hostnames agree.
func Config(dataDir string) plane.Config {
	cfg := plane.NewConfig()
	cfg.DataDir = dataDir
	cfg.FQDNNodes = 1
	cfg.Port = 0
	cfg.ReadyDelay = 150 * time.Millisecond
	cfg.UnsafeNoFsync = true
	return cfg
}

// ExecMain makes the test binary act as a command when it was started with
// ExecMainEnv=1 (call it first in a TestMain): it runs main (the command's
// main function, e.g. the root command's) with the process's arguments
// and exits with its code. Otherwise it returns at once. The command is
// passed in, so that this package, which the plane's own tests use, does
// not import the command line packages above the plane.
func ExecMain(main func(args []string, stdout, stderr io.Writer) int) {
	if os.Getenv(ExecMainEnv) == "1" {
		os.Exit(main(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// Main is a TestMain body: it starts a plane configured by configure (may
// be nil), calls each setup once the plane is ready, runs the tests, stops
// the plane and exits. A package whose tests run the test binary as a
// command calls ExecMain first.
func Main(m *testing.M, configure func(*plane.Config), setup ...func()) {
	flag.Parse()
	os.Exit(run(m, configure, setup))
}

func run(m *testing.M, configure func(*plane.Config), setup []func()) int {
	release, err := OneAtATime()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	dir, err := os.MkdirTemp("", "ordinal-test-plane-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	QuietLogs(dir)
	dataDir = filepath.Join(dir, "data")
	cfg := Config(dataDir)
	if configure != nil {
		configure(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	shared, err = plane.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the test plane:", err)
		return 1
	}
	defer shared.Close()
	fmt.Printf("test plane ready in %s\n", time.Since(began).Round(time.Millisecond))
	client = kubernetes.NewForConfigOrDie(shared.RESTConfig())
	for _, f := range setup {
		f()
	}
	return m.Run()
}

// LogEnv names a file that, when set, receives a verbose (V(4)) component
// log instead of the quiet one deleted after the run; for debugging.
const LogEnv = "ORDINAL_TEST_LOG"

// QuietLogs sends klog output to a file in dir, keeping test output readable.
func QuietLogs(dir string) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("log_file", filepath.Join(dir, "components.log"))
	if path := os.Getenv(LogEnv); path != "" {
		_ = fs.Set("log_file", path)
		_ = fs.Set("v", "4")
	}
}

// KubectlOrSkip returns kubectl's path, or skips the test when kubectl is
// not installed.
func KubectlOrSkip(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	return path
}
