package chaos

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// judged are the packages of the controller the suite judges: what it
// decides (planner, osts, controller, setops) and what it computes
// revisions and defaults with. The suite drives the controller as child
// processes of this test binary (through internal/cli/root), so none of
// its files needs to import them.
var judged = []string{"planner", "osts", "controller", "revision", "defaults", "setops"}

// judgedImports lists, as "file: path", every import of a package under
// judged by the Go files in dir.
func judgedImports(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("listing Go files in %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	var out []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(judged, func(p string) bool { return isWithin(path, "github.com/ordinal-sh/ordinal/internal/"+p) }) {
				out = append(out, filepath.Base(name)+": "+path)
			}
		}
	}
	return out, nil
}

// isWithin reports whether path is pkg or a package below it
// (internal/osts, not internal/ostsclient).
func isWithin(path, pkg string) bool { return path == pkg || strings.HasPrefix(path, pkg+"/") }

// The suite judges the controller from the outside: it works out what a
// converged set looks like from the spec (with internal/invariant, which
// shares no code with the controller either), never with the
// controller's own code, or a mistake there would be agreed with rather
// than caught.
func TestTheSuiteImportsNoControllerCode(t *testing.T) {
	found, err := judgedImports(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range found {
		t.Errorf("%s: the chaos suite must not import the code it judges", imp)
	}
}

// The import check sees an import of a judged package, and of a package
// below one, and not one that only shares a prefix.
func TestJudgedImportsFindsTheControllersPackages(t *testing.T) {
	dir := t.TempDir()
	src := `package chaos

import (
	_ "github.com/ordinal-sh/ordinal/internal/controller/sub"
	_ "github.com/ordinal-sh/ordinal/internal/invariant"
	_ "github.com/ordinal-sh/ordinal/internal/ostsclient"
	_ "github.com/ordinal-sh/ordinal/internal/planner"
)
`
	if err := os.WriteFile(filepath.Join(dir, "oracle_test.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	found, err := judgedImports(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"oracle_test.go: github.com/ordinal-sh/ordinal/internal/controller/sub",
		"oracle_test.go: github.com/ordinal-sh/ordinal/internal/planner"}
	if !slices.Equal(found, want) {
		t.Errorf("judged imports %q, want %q", found, want)
	}
}
