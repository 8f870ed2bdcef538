package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// File is one regular file of the layer.
type File struct {
	// Path is absolute inside the image, e.g. /ordinal-controller.
	Path string
	// Mode is the permission bits; owner and group are always root.
	Mode int64
	Data []byte
}

// layerTar writes files, and the directories above them, as a tar stream
// in lexical order, every entry owned by root and stamped with modTime.
func layerTar(files []File, modTime time.Time) ([]byte, error) {
	entries, err := tarEntries(files)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, ModTime: modTime, Format: tar.FormatUSTAR}
		if e.dir {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("writing the header of %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("writing %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing the layer: %w", err)
	}
	return buf.Bytes(), nil
}

type tarEntry struct {
	name string
	mode int64
	dir  bool
	data []byte
}

// tarEntries lists the files and every parent directory (mode 0755), sorted
// by name, so the stream depends on nothing but the files' paths and bytes.
func tarEntries(files []File) ([]tarEntry, error) {
	byName := map[string]tarEntry{}
	for _, f := range files {
		clean := path.Clean(f.Path)
		if !path.IsAbs(f.Path) || clean != f.Path || clean == "/" {
			return nil, fmt.Errorf("image file path %q must be absolute and clean", f.Path)
		}
		name := strings.TrimPrefix(clean, "/")
		if _, dup := byName[name]; dup {
			return nil, fmt.Errorf("image file %s is given twice", f.Path)
		}
		byName[name] = tarEntry{name: name, mode: f.Mode, data: f.Data}
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			byName[dir+"/"] = tarEntry{name: dir + "/", mode: 0o755, dir: true}
		}
	}
	entries := make([]tarEntry, 0, len(byName))
	for _, e := range byName {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	return entries, nil
}

// newLayer returns files as a gzip-compressed OCI layer. Go's gzip writer
// is deterministic for a given Go release, and the stream carries no name
// or time of its own.
func newLayer(files []File, modTime time.Time) (v1.Layer, error) {
	raw, err := layerTar(files, modTime)
	if err != nil {
		return nil, err
	}
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	layer, err := tarball.LayerFromOpener(opener, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("compressing the layer: %w", err)
	}
	return layer, nil
}
