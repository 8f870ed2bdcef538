package realnode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// importImages imports every OCI archive in the tools directory's images/
// into the runtime's Kubernetes namespace as localhost/ordinal/NAME:TAG
// (NAME the file's, TAG the archive's own).
func (n *Node) importImages(ctx context.Context) ([]string, error) {
	archives, err := filepath.Glob(filepath.Join(n.cfg.Tools, "images", "*.tar"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".tar")
		if err := n.ImportImage(ctx, a, "localhost/ordinal/"+name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	if !slices.Contains(names, "pause") {
		return nil, fmt.Errorf("real node: %s holds no pause.tar, the sandbox image: run hack/ensure-realnode.sh", filepath.Join(n.cfg.Tools, "images"))
	}
	return names, nil
}

// ImportImage imports an OCI archive (an OCI layout in a tar, as
// hack/image.sh writes) into the runtime, named repository:TAG for each
// tag in it, and unpacks it for the overlayfs snapshotter, so a pod can run
// it without a pull.
func (n *Node) ImportImage(ctx context.Context, archive, repository string) error {
	if _, err := os.Stat(archive); err != nil {
		return fmt.Errorf("real node: image archive: %w", err)
	}
	_, err := output(ctx, n.cfg.bin("ctr"), "--address", n.cfg.socket(), "--namespace", "k8s.io",
		"images", "import", "--base-name", repository, "--snapshotter", "overlayfs", archive)
	if err != nil {
		return fmt.Errorf("real node: importing %s: %w", archive, err)
	}
	return nil
}
