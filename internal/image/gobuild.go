package image

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ControllerPackage is the command the image runs.
const ControllerPackage = "./cmd/ordinal-controller"

// GoBuild says how to compile the controller for one platform.
type GoBuild struct {
	// Dir is the module's root directory.
	Dir string
	// Package is the main package, relative to Dir.
	Package string
	// LDFlags are added to "-s -w" (no symbol table, no DWARF), e.g. the
	// version stamps of hack/ldflags.sh.
	LDFlags  string
	Platform Platform
}

// pinnedEnv are the variables that change the compiler's output and are
// set here rather than taken from the caller's environment: no cgo, so
// the binary is static; baseline instruction sets; no GOFLAGS or
// experiments from the shell.
var pinnedEnv = []string{"CGO_ENABLED=0", "GOFLAGS=-mod=readonly", "GOAMD64=v1", "GOARM64=v8.0", "GOEXPERIMENT="}

// Binary compiles the package and returns the binary's bytes: static
// (CGO_ENABLED=0), with -trimpath so no path of the build machine is in
// it, and without VCS stamping, so a checkout's local state is not either.
func (b GoBuild) Binary(ctx context.Context) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "ordinal-image-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "ordinal-controller")
	ldflags := strings.TrimSpace("-s -w " + b.LDFlags)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, b.Package)
	cmd.Dir = b.Dir
	cmd.Env = append(buildEnv(os.Environ()), "GOOS="+b.Platform.OS, "GOARCH="+b.Platform.Arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s for %s: %w\n%s", b.Package, b.Platform, err, msg)
	}
	return os.ReadFile(out)
}

// buildEnv is env without the variables pinnedEnv and the platform fix,
// then pinnedEnv.
func buildEnv(env []string) []string {
	drop := map[string]bool{"GOOS": true, "GOARCH": true}
	for _, kv := range pinnedEnv {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	var kept []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			kept = append(kept, kv)
		}
	}
	return append(kept, pinnedEnv...)
}
