package image_test

import (
	"archive/tar"
	"errors"
	"io"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// entry is one tar entry of an image layer, as a test compares it.
type entry struct {
	Name     string
	Mode     int64
	Type     byte
	UID, GID int
	ModTime  int64
}

// layerEntries reads every layer of img and returns its entries and the
// contents of its regular files by name.
func layerEntries(t *testing.T, img v1.Image) ([]entry, map[string][]byte) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var entries []entry
	data := map[string][]byte{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			entries = append(entries, entry{Name: hdr.Name, Mode: hdr.Mode, Type: hdr.Typeflag, UID: hdr.Uid, GID: hdr.Gid, ModTime: hdr.ModTime.Unix()})
			if hdr.Typeflag == tar.TypeReg {
				if data[hdr.Name], err = io.ReadAll(tr); err != nil {
					t.Fatal(err)
				}
			}
		}
		_ = rc.Close()
	}
	return entries, data
}

// wantEntries are the only entries the image may hold: the binary, the CA
// bundle and the directories above it, all root-owned.
func wantEntries(modTime int64) []entry {
	return []entry{
		{Name: "etc/", Mode: 0o755, Type: tar.TypeDir, ModTime: modTime},
		{Name: "etc/ssl/", Mode: 0o755, Type: tar.TypeDir, ModTime: modTime},
		{Name: "etc/ssl/certs/", Mode: 0o755, Type: tar.TypeDir, ModTime: modTime},
		{Name: "etc/ssl/certs/ca-certificates.crt", Mode: 0o444, Type: tar.TypeReg, ModTime: modTime},
		{Name: "ordinal-controller", Mode: 0o555, Type: tar.TypeReg, ModTime: modTime},
	}
}

// layoutImages opens the OCI layout at dir, checks it holds one index
// tagged tag, and returns that index's images by platform.
func layoutImages(t *testing.T, dir, tag string) (v1.Hash, map[string]v1.Image) {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != tag {
		t.Fatalf("index.json holds %+v, want one index tagged %s", m.Manifests, tag)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	images := map[string]v1.Image{}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		images[d.Platform.OS+"/"+d.Platform.Architecture] = img
	}
	return m.Manifests[0].Digest, images
}
