package install

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/plane"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

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

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run with -update to create it): %v", path, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update to accept):\n%s", path, diff)
	}
}
