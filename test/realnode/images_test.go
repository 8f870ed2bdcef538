package realnode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ordinal-sh/ordinal/internal/image"
)

var (
	imagesMu sync.Mutex
	images   = map[string]string{}
)

// testAppImage builds the test application's image with tag (which its
// GET / reports as the version), imports it into the real node once and
// returns its reference: an image update in place or by recreation, the
// way a user with a registry pushes a new tag.
func testAppImage(ctx context.Context, t *testing.T, tag string) string {
	t.Helper()
	ref, err := buildTestAppImage(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func buildTestAppImage(ctx context.Context, tag string) (string, error) {
	imagesMu.Lock()
	defer imagesMu.Unlock()
	if ref, ok := images[tag]; ok {
		return ref, nil
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		return "", err
	}
	out, err := os.MkdirTemp("", "ordinal-testapp-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(out)
	opts := image.Options{
		Dir: root, Package: "./cmd/ordinal-testapp", Entrypoint: "/testapp", User: "0:0", Title: "ordinal-testapp",
		Platforms:  []image.Platform{{OS: "linux", Arch: runtime.GOARCH}},
		Repository: "localhost/ordinal/testapp", Tag: tag, LDFlags: "-X main.version=" + tag,
		Created: time.Unix(0, 0).UTC(), Out: out, Name: "testapp",
	}
	res, err := image.Build(ctx, opts)
	if err != nil {
		return "", fmt.Errorf("building the test application's image %s: %w", tag, err)
	}
	if err := shared.RealNode().ImportImage(ctx, res.Archive, opts.Repository); err != nil {
		return "", err
	}
	ref := opts.Repository + ":" + tag
	images[tag] = ref
	return ref, nil
}
