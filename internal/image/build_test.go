package image_test

import (
	"bytes"
	"context"
	"debug/elf"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/image"
)

var cold = flag.Bool("cold", false, "compile the second build with an empty Go build cache: fully independent, several minutes")

const testTag = "v0.0.0-test"

var buildCreated = time.Unix(1_790_000_000, 0).UTC()

// moduleRoot is the checkout this test runs in.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func hostPlatform(t *testing.T) image.Platform {
	t.Helper()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skipf("the image is built for linux/amd64 and linux/arm64; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return image.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
}

func buildFrom(t *testing.T, dir, out string) image.Result {
	t.Helper()
	ldflags, err := exec.Command(filepath.Join(moduleRoot(t), "hack", "ldflags.sh")).Output()
	if err != nil {
		t.Fatalf("hack/ldflags.sh: %v", err)
	}
	o := image.Options{Dir: dir, LDFlags: strings.TrimSpace(string(ldflags)), Platforms: []image.Platform{hostPlatform(t)},
		Repository: "example.test/ordinal-controller", Tag: testTag, Revision: "0123abc", Created: buildCreated,
		Out: out, Name: "ordinal-controller"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	began := time.Now()
	res, err := image.Build(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %s from %s in %s: %d bytes to pull", res.Reference(o), dir, time.Since(began).Round(time.Millisecond), res.Images[0].Size)
	return res
}

// copyTree copies the checkout's files, without .git and bin, to a new
// directory, so that the second build sees other paths and other times.
func copyTree(t *testing.T, root string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "elsewhere", "ordinal")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.IsDir() && (rel == ".git" || rel == "bin" || rel == ".ordinal"):
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var (
	firstOnce  sync.Once
	firstBuild image.Result
	// sharedOut holds the first build's output for every test; TestMain
	// removes it.
	sharedOut string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if sharedOut != "" {
		_ = os.RemoveAll(sharedOut)
	}
	os.Exit(code)
}

// first is this checkout's build, shared by the tests that inspect it.
func first(t *testing.T) image.Result {
	t.Helper()
	firstOnce.Do(func() {
		var err error
		if sharedOut, err = os.MkdirTemp("", "ordinal-image-test-"); err != nil {
			t.Fatal(err)
		}
		firstBuild = buildFrom(t, moduleRoot(t), sharedOut)
	})
	if firstBuild.Layout == "" {
		t.Fatal("the first build failed")
	}
	return firstBuild
}

func TestTwoBuildsOfOneCommitFromDifferentCheckoutsGiveTheSameDigest(t *testing.T) {
	a := first(t)
	other := copyTree(t, moduleRoot(t))
	if *cold {
		t.Setenv("GOCACHE", t.TempDir())
	}
	b := buildFrom(t, other, t.TempDir())
	if a.Digest != b.Digest {
		t.Fatalf("the same sources gave %s and %s", a.Digest, b.Digest)
	}
	for _, f := range []func(image.Result) string{
		func(r image.Result) string { return r.Archive },
		func(r image.Result) string { return filepath.Join(r.Layout, "index.json") },
	} {
		x, errx := os.ReadFile(f(a))
		y, erry := os.ReadFile(f(b))
		if errx != nil || erry != nil || !bytes.Equal(x, y) {
			t.Errorf("%s and %s differ (%v, %v)", f(a), f(b), errx, erry)
		}
	}
}

func TestTheBuiltImageRunsTheStaticControllerAsNonRootAndHoldsNothingElse(t *testing.T) {
	res := first(t)
	host := hostPlatform(t)
	digest, images := layoutImages(t, res.Layout, testTag)
	if digest != res.Digest || len(images) != 1 || images[host.String()] == nil {
		t.Fatalf("the layout holds index %s with %v, want %s with one %s image", digest, images, res.Digest, host)
	}
	img := images[host.String()]
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "65532:65532" || !cmp.Equal(cfg.Config.Entrypoint, []string{"/ordinal-controller"}) || len(cfg.Config.Cmd) != 0 {
		t.Errorf("config runs %q %q as %q, want the entrypoint /ordinal-controller as 65532:65532", cfg.Config.Entrypoint, cfg.Config.Cmd, cfg.Config.User)
	}
	entries, data := layerEntries(t, img)
	if diff := cmp.Diff(wantEntries(buildCreated.Unix()), entries); diff != "" {
		t.Errorf("layer entries (-want +got):\n%s", diff)
	}
	checkStatic(t, data["ordinal-controller"], host)
	checkRuns(t, data["ordinal-controller"])
}

// checkStatic fails unless bin is an ELF executable for the platform with
// no program interpreter and no dynamic section: a shell-less image has no
// loader or libc to offer it.
func checkStatic(t *testing.T, bin []byte, p image.Platform) {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("the binary is not ELF: %v", err)
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Arch]
	if f.Machine != machine || f.Type != elf.ET_EXEC {
		t.Errorf("the binary is %s %s, want an executable for %s", f.Type, f.Machine, machine)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%s)", prog.Type)
		}
	}
}

// checkRuns starts the image's binary with --help: it is the controller.
func checkRuns(t *testing.T, bin []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ordinal-controller")
	if err := os.WriteFile(path, bin, 0o555); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ordinal-controller [flags]") || !strings.Contains(string(out), "--leader-elect") {
		t.Errorf("the image's binary --help: %v\n%s", err, out)
	}
}
