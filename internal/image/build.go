package image

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Options is one build of the image.
type Options struct {
	// Dir is the module's root directory.
	Dir string
	// LDFlags are extra linker flags for the binary.
	LDFlags   string
	Platforms []Platform
	// Repository and Tag name the image, e.g.
	// ghcr.io/ordinal-sh/ordinal-controller and v0.1.0.
	Repository, Tag string
	// Revision is the source commit, recorded as a label when not empty.
	Revision string
	// Created is the image's fixed creation time.
	Created time.Time
	// Out is the output directory: the OCI layout goes to Out/Name, the OCI
	// archive to Out/Name.tar.
	Out, Name string
	// Package is the main package to build, relative to Dir; empty means
	// ControllerPackage. Entrypoint and User are the image's (Spec's
	// defaults when empty), and Title its org.opencontainers.image.title
	// (empty: "ordinal-controller").
	Package, Entrypoint, User, Title string
}

// Result is what a build wrote.
type Result struct {
	// Digest is the image index's digest, the one to pull by.
	Digest          v1.Hash
	Layout, Archive string
	Images          []PlatformResult
}

// Reference is repository:tag@digest.
func (r Result) Reference(o Options) string {
	return fmt.Sprintf("%s:%s@%s", o.Repository, o.Tag, r.Digest)
}

// PlatformResult is one platform's image in the index.
type PlatformResult struct {
	Platform Platform
	Digest   v1.Hash
	// Size is the bytes a pull transfers: manifest, config and the
	// compressed layer.
	Size int64
	// BinarySize is the controller binary's size.
	BinarySize int
}

// Build compiles the controller for every platform, assembles the images
// and writes the OCI layout and archive.
func Build(ctx context.Context, o Options) (Result, error) {
	if len(o.Platforms) == 0 || o.Repository == "" || o.Tag == "" || o.Out == "" || o.Name == "" {
		return Result{}, fmt.Errorf("an image build needs platforms, a repository, a tag, an output directory and a name")
	}
	var built []Built
	var res Result
	certs := CABundle()
	for _, p := range o.Platforms {
		bin, err := GoBuild{Dir: o.Dir, Package: cmp.Or(o.Package, ControllerPackage), LDFlags: o.LDFlags, Platform: p}.Binary(ctx)
		if err != nil {
			return Result{}, err
		}
		img, err := Image(Spec{Platform: p, Binary: bin, CACertificates: certs, Created: o.Created, Labels: o.labels(),
			Entrypoint: o.Entrypoint, User: o.User})
		if err != nil {
			return Result{}, fmt.Errorf("assembling the %s image: %w", p, err)
		}
		pr, err := describe(p, img, len(bin))
		if err != nil {
			return Result{}, err
		}
		built, res.Images = append(built, Built{Platform: p, Image: img}), append(res.Images, pr)
	}
	return res, o.write(Index(built), &res)
}

func (o Options) write(idx v1.ImageIndex, res *Result) error {
	digest, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("digesting the image index: %w", err)
	}
	res.Digest = digest
	res.Layout, res.Archive = filepath.Join(o.Out, o.Name), filepath.Join(o.Out, o.Name+".tar")
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	if err := WriteLayout(res.Layout, idx, o.Tag); err != nil {
		return err
	}
	return WriteArchive(res.Layout, res.Archive, o.Created)
}

func describe(p Platform, img v1.Image, binarySize int) (PlatformResult, error) {
	digest, err := img.Digest()
	if err != nil {
		return PlatformResult{}, fmt.Errorf("digesting the %s image: %w", p, err)
	}
	m, err := img.Manifest()
	if err != nil {
		return PlatformResult{}, fmt.Errorf("reading the %s manifest: %w", p, err)
	}
	raw, err := img.RawManifest()
	if err != nil {
		return PlatformResult{}, fmt.Errorf("reading the %s manifest: %w", p, err)
	}
	size := int64(len(raw)) + m.Config.Size
	for _, l := range m.Layers {
		size += l.Size
	}
	return PlatformResult{Platform: p, Digest: digest, Size: size, BinarySize: binarySize}, nil
}

// labels are the OCI annotations every platform's config carries.
func (o Options) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":   cmp.Or(o.Title, "ordinal-controller"),
		"org.opencontainers.image.source":  "https://github.com/ordinal-sh/ordinal",
		"org.opencontainers.image.version": o.Tag,
	}
	if o.Revision != "" {
		l["org.opencontainers.image.revision"] = o.Revision
	}
	return l
}

// ParsePlatforms reads a comma-separated list such as
// "linux/amd64,linux/arm64". Only Linux on amd64 and arm64 is offered:
// those are the platforms whose instruction-set baseline the build pins.
func ParsePlatforms(s string) ([]Platform, error) {
	var out []Platform
	seen := map[Platform]bool{}
	for _, item := range strings.Split(s, ",") {
		osName, arch, ok := strings.Cut(strings.TrimSpace(item), "/")
		p := Platform{OS: osName, Arch: arch}
		if !ok || osName != "linux" || (arch != "amd64" && arch != "arm64") {
			return nil, fmt.Errorf("platform %q is not one of linux/amd64, linux/arm64", item)
		}
		if seen[p] {
			return nil, fmt.Errorf("platform %s is given twice", p)
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}
