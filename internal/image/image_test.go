package image_test

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/ordinal-sh/ordinal/internal/image"
)

var created = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func spec(binary string) image.Spec {
	return image.Spec{Platform: image.Platform{OS: "linux", Arch: "arm64"}, Binary: []byte(binary),
		CACertificates: image.CABundle(), Created: created, Labels: map[string]string{"org.opencontainers.image.version": "v9.9.9"}}
}

func build(t *testing.T, s image.Spec) v1.Image {
	t.Helper()
	img, err := image.Image(s)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func digest(t *testing.T, d interface{ Digest() (v1.Hash, error) }) v1.Hash {
	t.Helper()
	h, err := d.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestTheImageHoldsOnlyTheBinaryAndTheCABundle(t *testing.T) {
	img := build(t, spec("controller bytes"))
	entries, data := layerEntries(t, img)
	if diff := cmp.Diff(wantEntries(created.Unix()), entries); diff != "" {
		t.Errorf("layer entries (-want +got):\n%s", diff)
	}
	if string(data["ordinal-controller"]) != "controller bytes" {
		t.Errorf("the binary's bytes changed on the way into the image")
	}
	if !bytes.Equal(data["etc/ssl/certs/ca-certificates.crt"], image.CABundle()) {
		t.Errorf("the CA bundle's bytes changed on the way into the image")
	}
}

func TestTheImageRunsTheBinaryAsNonRootWithNothingElse(t *testing.T) {
	img := build(t, spec("x"))
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want := v1.Config{Entrypoint: []string{"/ordinal-controller"}, User: "65532:65532", WorkingDir: "/",
		Labels: map[string]string{"org.opencontainers.image.version": "v9.9.9"}}
	if diff := cmp.Diff(want, cfg.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if cfg.OS != "linux" || cfg.Architecture != "arm64" || !cfg.Created.Equal(created) {
		t.Errorf("config platform %s/%s created %s, want linux/arm64 created %s", cfg.OS, cfg.Architecture, cfg.Created, created)
	}
	if mt := mediaType(t, img.MediaType); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s, want %s", mt, types.OCIManifestSchema1)
	}
}

func mediaType(t *testing.T, f func() (types.MediaType, error)) types.MediaType {
	t.Helper()
	mt, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return mt
}

func TestTheDigestChangesWithTheInputsAndNothingElse(t *testing.T) {
	base := digest(t, build(t, spec("one")))
	if again := digest(t, build(t, spec("one"))); again != base {
		t.Errorf("the same inputs gave %s and %s", base, again)
	}
	later := spec("one")
	later.Created = created.Add(time.Second)
	for name, s := range map[string]image.Spec{"another binary": spec("two"), "another time": later} {
		if d := digest(t, build(t, s)); d == base {
			t.Errorf("%s kept the digest %s", name, d)
		}
	}
}

func TestTheCABundleIsManyParseableRoots(t *testing.T) {
	rest, n := image.CABundle(), 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			t.Fatalf("certificate %d: %v", n, err)
		}
		n++
	}
	if len(bytes.TrimSpace(rest)) != 0 || n < 100 {
		t.Errorf("the bundle parsed into %d certificates with %d bytes left over; want over 100 and none", n, len(rest))
	}
}

func TestTheLayoutAndArchiveAreTheSameWhereverWritten(t *testing.T) {
	idx := image.Index([]image.Built{{Platform: image.Platform{OS: "linux", Arch: "arm64"}, Image: build(t, spec("x"))}})
	var sums [][32]byte
	for _, dir := range []string{t.TempDir(), t.TempDir()} {
		lay := filepath.Join(dir, "deeper", "layout")
		if err := image.WriteLayout(lay, idx, "v9.9.9"); err != nil {
			t.Fatal(err)
		}
		if err := image.WriteArchive(lay, filepath.Join(dir, "image.tar"), created); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "image.tar"))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sha256.Sum256(data))
		if d, imgs := layoutImages(t, lay, "v9.9.9"); d != digest(t, idx) || len(imgs) != 1 {
			t.Errorf("the layout holds index %s with %d images, want %s with 1", d, len(imgs), digest(t, idx))
		}
	}
	if sums[0] != sums[1] {
		t.Errorf("two archives of the same index differ")
	}
}

func TestWritingALayoutOverAnythingElseIsRefused(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	idx := image.Index([]image.Built{{Platform: image.Platform{OS: "linux", Arch: "arm64"}, Image: build(t, spec("x"))}})
	err := image.WriteLayout(dir, idx, "v9.9.9")
	if err == nil {
		t.Fatal("writing a layout over a directory of other files succeeded")
	}
	if data, rerr := os.ReadFile(keep); rerr != nil || string(data) != "mine" {
		t.Errorf("the refused write touched the directory: %v %q", rerr, data)
	}
	t.Logf("error: %v", err)
}

// Another command's image (the real node's pause container or test
// application) names its own entrypoint and user; the binary is at that
// path and nothing else changes.
func TestAnotherCommandsImageRunsItsEntrypointAsItsUser(t *testing.T) {
	s := spec("pause bytes")
	s.Entrypoint, s.User = "/pause", "65535:65535"
	img := build(t, s)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config; !cmp.Equal(got.Entrypoint, []string{"/pause"}) || got.User != "65535:65535" {
		t.Errorf("entrypoint %v user %q, want [/pause] 65535:65535", got.Entrypoint, got.User)
	}
	_, data := layerEntries(t, img)
	if string(data["pause"]) != "pause bytes" {
		t.Errorf("the layer holds %v, not the binary at /pause", keys(data))
	}
	if _, ok := data["ordinal-controller"]; ok {
		t.Error("the layer still holds /ordinal-controller")
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
