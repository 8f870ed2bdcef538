package planner_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rolling update's core (rollingUpdate, the executors and the round
// they run) must name no feature: a feature limits the update through
// the gate or sorter it registers from its own file, never through a
// branch in the core. The check reads the package's source: every name a
// registering file declares is a feature's, and the core may use none of
// them; the loop every policy runs (runRound, rollingUpdate) may not
// read the extended inputs either.
func TestTheRollingCoreNamesNoFeature(t *testing.T) {
	fset := token.NewFileSet()
	files := parsePackage(t, fset)
	features := map[string]string{} // name → file that declares it
	for name, f := range files {
		if registers(f) {
			for _, d := range declared(f) {
				features[d] = name
			}
		}
	}
	if len(features) < 10 {
		t.Fatalf("found %d names of features' files, want the gates' and sorters' (budget, topology, roles, priority)", len(features))
	}
	core := map[string][]string{
		"rolling.go":           {"rollingUpdate"},
		"executor.go":          nil, // every function
		"executor_recreate.go": nil,
		"executor_inplace.go":  nil,
		"executor_claims.go":   nil,
	}
	noExtended := []string{"rollingUpdate", "runRound", "executorFor", "podExecutor"}
	checked := 0
	for file, only := range core {
		f := files[file]
		if f == nil {
			t.Fatalf("%s: not in the package", file)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || (only != nil && !slices.Contains(only, fn.Name.Name)) {
				continue
			}
			checked++
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident) // a selector's name is an Ident too
				if !ok {
					return true
				}
				name := id.Name
				if from, ok := features[name]; ok {
					t.Errorf("%s %s names %s, which %s declares: a feature belongs in its gate or sorter", fset.Position(n.Pos()), fn.Name.Name, name, from)
				}
				if name == "ext" && slices.Contains(noExtended, fn.Name.Name) {
					t.Errorf("%s %s reads the extended inputs: the core loop holds no feature predicate", fset.Position(n.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d functions of the core, want rollingUpdate, runRound and every executor's methods", checked)
	}
}

// parsePackage parses the package's non-test files, by base name.
func parsePackage(t *testing.T, fset *token.FileSet) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	return out
}

// registers reports whether f registers a gate or a sorter.
func registers(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && (id.Name == "registerGate" || id.Name == "registerSorter") {
				found = true
			}
		}
		return !found
	})
	return found
}

// declared are the names of f's top-level functions, types and methods
// of the planner (a feature's own types' methods are reached only through
// its gate).
func declared(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != "init" && (d.Recv == nil || isPlanner(d.Recv.List[0].Type)) {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					out = append(out, ts.Name.Name)
				}
			}
		}
	}
	return out
}

// isPlanner reports whether a receiver's type is *planner.
func isPlanner(e ast.Expr) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "planner"
}
