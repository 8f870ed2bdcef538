package internal_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ordinal-sh/ordinal/"

// rooms are the project's packages by floor: a package may import only
// packages of its own room or of a lower floor (docs/architecture.md).
// Rooms on one floor do not import each other.
var rooms = []struct {
	prefix string
	floor  int
}{
	{"test/", 10},
	{"cmd/", 9},
	{"hack/", 9},
	{"internal/cli/", 8},
	{"internal/plane", 7},
	{"internal/bench", 7},
	{"internal/dashboard", 7},
	{"internal/migrate", 7},
	{"internal/controller", 6},
	{"internal/setops", 6},
	{"internal/drain", 6},
	{"internal/podcall", 5},
	{"internal/kubeclient", 3},
	{"internal/ostsclient", 2},
	{"internal/osts", 4},
	{"internal/rolloutview", 4},
	{"internal/planner", 3},
	{"internal/testgen", 3},
	{"internal/revision", 2},
	{"internal/configrev", 2},
	{"internal/setkind", 2},
	{"internal/defaults", 1},
	{"internal/invariant", 3},
	{"internal/faults", 1},
	{"internal/conflict", 1},
	{"internal/child", 1},
	{"internal/workloop", 1},
	{"internal/golden", 1},
	{"internal/image", 1},
	{"api/", 1},
	{"config/", 1},
}

// onlyImportedBy limits who may import a package outside tests: the test
// helpers and the chaos suite's fault injector never reach a binary's
// code paths, except that the ordinal binary's root command installs the
// injector's hidden flags; the real node is started by the plane alone.
var onlyImportedBy = map[string][]string{
	"internal/testgen":   nil,
	"internal/invariant": nil,
	"internal/faults":    {"internal/cli/root"},
	// The real node's processes and host changes are the plane's to run;
	// `ordinal up` only names its taint.
	"internal/plane/realnode": {"internal/plane", "internal/cli/up"},
}

// room is the room that holds pkg, and how many rooms hold it: exactly
// one, or the folder tree no longer tells the floors (a room nested in
// another, on another floor, is an exception the test refuses).
func room(pkg string) (prefix string, floor, holders int) {
	for _, r := range rooms {
		if holds(r.prefix, pkg) {
			prefix, floor = r.prefix, r.floor
			holders++
		}
	}
	return prefix, floor, holders
}

// holds reports whether the room of prefix holds pkg: a prefix ending in
// "/" holds every package below it, any other the package of that path
// and those below it, so that "internal/osts" does not hold
// "internal/ostsclient".
func holds(prefix, pkg string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(pkg, prefix)
	}
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// Imports run down the floors only, never up or sideways, so that a low
// room (the planner, the controller) never drags a high one (the plane,
// the command line) into a binary that links it.
func TestImportsRunDownTheFloors(t *testing.T) {
	statSources(t, "..")
	out, err := exec.Command("go", "list", "-f", `{{if .GoFiles}}{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{end}}`, module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 20 {
		t.Fatalf("go list printed %d packages, expected the project's few dozen", len(lines))
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue // a package of tests only
		}
		pkg := strings.TrimPrefix(fields[0], module)
		from, floor, holders := room(pkg)
		switch {
		case holders == 0:
			t.Errorf("package %s is in no room; add it to rooms", pkg)
			continue
		case holders > 1:
			t.Errorf("package %s is in %d rooms; give it a folder of its own room", pkg, holders)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			checkImport(t, pkg, from, floor, dep)
		}
	}
}

func checkImport(t *testing.T, pkg, from string, floor int, dep string) {
	t.Helper()
	to, depFloor, _ := room(dep)
	if to != from && depFloor >= floor {
		t.Errorf("%s (floor %d) imports %s (floor %d): imports must run down the floors", pkg, floor, dep, depFloor)
	}
	for limited, allowed := range onlyImportedBy {
		if strings.HasPrefix(dep, limited) && !strings.HasPrefix(pkg, limited) && !slices.Contains(allowed, pkg) {
			t.Errorf("%s imports %s, which only %v may import outside tests", pkg, dep, allowed)
		}
	}
}

// runsTheController are the packages that start the reconciler and so
// link it: `ordinal controller`, `ordinal up` (through the plane),
// `ordinal bench`, `ordinal rehearse` (its plays), and the root command
// that holds every command.
var runsTheController = []string{"internal/cli/controllercmd", "internal/cli/up", "internal/cli/benchcmd",
	"internal/cli/rehearse", "internal/cli/rehearse/play", "internal/cli/root"}

// The dashboard and every other command read and act on sets through
// setops and reach a cluster through kubeclient. Linking the reconciler
// would bring its work queue, event recorder and Prometheus metrics along
// for one discovery call; the floors allow that import, so this test
// refuses it.
func TestOnlyTheCommandsThatRunTheControllerLinkIt(t *testing.T) {
	statSources(t, "..")
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"internal/dashboard", module+"internal/cli/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var checked []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if slices.Contains(runsTheController, pkg) {
			continue
		}
		checked = append(checked, pkg)
		if slices.Contains(fields[1:], module+"internal/controller") {
			t.Errorf("%s links internal/controller; reach the cluster through internal/kubeclient and sets through internal/setops", pkg)
		}
	}
	for _, want := range []string{"internal/dashboard", "internal/cli/rollout", "internal/cli/doctor", "internal/cli/dashboardcmd",
		"internal/cli/rehearse/shape", "internal/cli/rehearse/learn", "internal/cli/rehearse/forecast"} {
		if !slices.Contains(checked, want) {
			t.Errorf("%s was not checked (checked %v)", want, checked)
		}
	}
}

// statSources stats every Go file under root, so that go test's result
// cache, which notes the files a test opens or stats, reruns this test when
// any of them changes: go list reads them in a child process the cache
// does not see.
func statSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
