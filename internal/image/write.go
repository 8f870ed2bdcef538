package image

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// RefNameAnnotation tags an entry of an OCI layout's index.json, the name
// `skopeo copy oci:DIR:TAG` and `crane push` look up.
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes idx as the only entry of a fresh OCI image layout in
// dir, tagged tag. A dir that exists must be an OCI layout (it is replaced)
// or empty: anything else is refused rather than deleted.
func WriteLayout(dir string, idx v1.ImageIndex, tag string) error {
	if err := clearLayout(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("writing the OCI layout %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: tag})); err != nil {
		return fmt.Errorf("writing the image index into %s: %w", dir, err)
	}
	return nil
}

func clearLayout(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", dir, err)
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
		return fmt.Errorf("%s exists and is not an OCI image layout; not replacing it", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing the previous layout %s: %w", dir, err)
	}
	return nil
}

// WriteArchive packs the layout in dir into file as an OCI archive (the
// layout's files in a tar, as `skopeo copy oci-archive:FILE` and
// `docker load` read it), entries in lexical order, stamped with modTime.
func WriteArchive(dir, file string, modTime time.Time) error {
	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("creating %s: %w", file, err)
	}
	defer os.Remove(tmp)
	tw := tar.NewWriter(f)
	werr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		return archiveEntry(tw, dir, path, d, modTime)
	})
	if cerr := tw.Close(); werr == nil {
		werr = cerr
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing the OCI archive %s: %w", file, werr)
	}
	return os.Rename(tmp, file)
}

func archiveEntry(tw *tar.Writer, root, path string, d fs.DirEntry, modTime time.Time) error {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return err
	}
	name := filepath.ToSlash(rel)
	if d.IsDir() {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: modTime, Format: tar.FormatUSTAR})
	}
	info, err := d.Info()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: info.Size(), ModTime: modTime, Format: tar.FormatUSTAR}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(tw, src)
	return err
}
