package realnode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordinal-sh/ordinal/internal/plane/ownership"
)

// checkTools reports every binary missing from the tools directory, and
// refuses what another user could have written or could swap (the
// directory, every directory above it, bin/, cni/, images/, each binary,
// plugin and image archive): the real node runs them as root, so whoever
// could replace one would run code as root.
func (c Config) checkTools() error {
	if c.Tools == "" {
		return errors.New("real node: no tools directory: neither $XDG_CACHE_HOME nor $HOME is set; pass --real-node-tools " +
			"(hack/ensure-realnode.sh builds one and prints where)")
	}
	var missing []string
	var paths []string
	for _, b := range binaries {
		paths = append(paths, c.bin(b))
	}
	for _, p := range plugins {
		paths = append(paths, filepath.Join(c.Tools, "cni", p))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, strings.TrimPrefix(p, c.Tools+string(filepath.Separator)))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("real node: the tools directory %s lacks %v: run hack/ensure-realnode.sh (it prints the directory), or pass --real-node-tools", c.Tools, missing)
	}
	if err := checkAbove("tools directory", c.Tools, otherTools); err != nil {
		return err
	}
	archives, err := filepath.Glob(filepath.Join(c.Tools, "images", "*.tar"))
	if err != nil {
		return fmt.Errorf("real node: listing the image archives: %w", err)
	}
	for _, p := range append(append([]string{c.Tools, filepath.Join(c.Tools, "bin"), filepath.Join(c.Tools, "cni"), filepath.Join(c.Tools, "images")}, paths...), archives...) {
		if err := ownedByUs(p, otherTools); err != nil {
			return err
		}
	}
	return nil
}

// rootRuns is why a path of the real node's must be nobody else's.
const rootRuns = "and the real node runs what it holds as root"

// Remedies of a refused tools or node directory.
const (
	otherTools = "pass --real-node-tools of your own, built by hack/ensure-realnode.sh with ORDINAL_REALNODE_TOOLS set to it"
	otherDir   = "pass a --data-dir of your own"
)

// ownedByUs refuses path (following a symbolic link) when it belongs to
// another user or its group or others may write it (ownership.Private);
// elsewhere says how to use another.
func ownedByUs(path, elsewhere string) error {
	err := ownership.Private(path, false)
	var refused *ownership.Error
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &refused):
		return fmt.Errorf("real node: %w", err)
	case refused.Owner >= 0:
		return fmt.Errorf("real node: %w, %s: %s", err, rootRuns, elsewhere)
	}
	return fmt.Errorf("real node: %w, %s: run chmod go-w %s if only you ever had access, or %s", err, rootRuns, path, elsewhere)
}

// checkDir refuses a node directory that another user could have written
// or could swap: containerd's, the kubelet's and CNI's configuration and
// state there steer processes that run as root.
func (c Config) checkDir() error {
	if c.Dir == "" {
		return nil
	}
	if err := checkAbove("node directory", c.Dir, otherDir); err != nil {
		return err
	}
	return ownedByUs(c.Dir, otherDir)
}

// checkAbove refuses path, the node's what, when a directory above it
// would let another user swap it (ownership.Ancestors); remedy says how to
// use another.
func checkAbove(what, path, remedy string) error {
	err := ownership.Ancestors(path)
	var refused *ownership.Error
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &refused):
		return fmt.Errorf("real node: %w", err)
	}
	return fmt.Errorf("real node: %w, so another user could swap the %s %s, %s: fix %s, or %s below directories only root or you may change",
		err, what, path, rootRuns, refused.Path, remedy)
}
