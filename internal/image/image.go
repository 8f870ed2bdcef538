package image

import (
	"cmp"
	"fmt"
	"path"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// BinaryPath is the controller binary inside the image, its entrypoint
	// (the default of Spec.Entrypoint).
	BinaryPath = "/ordinal-controller"
	// User is the numeric user and group the controller runs as: not root,
	// and the id distroless images call "nonroot", which cluster policies
	// commonly expect.
	User = "65532:65532"
)

// Platform is an image's operating system and architecture.
type Platform struct {
	OS, Arch string
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Spec is everything one platform's image is made of.
type Spec struct {
	Platform Platform
	// Binary is the static controller binary for Platform.
	Binary []byte
	// CACertificates is the PEM bundle of trusted roots.
	CACertificates []byte
	// Created is the config's creation time and every file's modification
	// time; the build passes a fixed one so that the digest is too.
	Created time.Time
	// Labels go into the image config (org.opencontainers.image.*).
	Labels map[string]string
	// Entrypoint is the binary's path in the image; empty means BinaryPath.
	Entrypoint string
	// User is the user:group the entrypoint runs as; empty means User.
	User string
}

func (s Spec) entrypoint() string { return cmp.Or(s.Entrypoint, BinaryPath) }

// Files lists what the image holds: the binary, read-only and executable,
// and the CA bundle, read-only. Nothing else, no shell.
func (s Spec) Files() []File {
	return []File{
		{Path: s.entrypoint(), Mode: 0o555, Data: s.Binary},
		{Path: CACertificatesPath, Mode: 0o444, Data: s.CACertificates},
	}
}

// Image assembles the OCI image of spec: one layer, the entrypoint, the
// non-root user and the labels.
func Image(spec Spec) (v1.Image, error) {
	created := spec.Created.UTC()
	layer, err := newLayer(spec.Files(), created)
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: path.Base(spec.entrypoint()) + " binary and CA certificates"}})
	if err != nil {
		return nil, fmt.Errorf("adding the layer: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = spec.Platform.OS, spec.Platform.Arch
	cfg.Created = v1.Time{Time: created}
	cfg.Config = v1.Config{Entrypoint: []string{spec.entrypoint()}, User: cmp.Or(spec.User, User), WorkingDir: "/", Labels: spec.Labels}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("writing the config: %w", err)
	}
	return img, nil
}

// Built is one platform's image.
type Built struct {
	Platform Platform
	Image    v1.Image
}

// Index gathers the images into an OCI image index, in the order given, each
// described by its platform so a runtime pulls its own.
func Index(images []Built) v1.ImageIndex {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range images {
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: b.Image,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: b.Platform.OS, Architecture: b.Platform.Arch}}})
	}
	return idx
}
