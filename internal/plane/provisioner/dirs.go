package provisioner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

const (
	// rootMode matches the plane's data dir (0700): volume contents are the
	// plane owner's business only.
	rootMode fs.FileMode = 0o700
	// dirMode is what the kubelet gives a hostPath DirectoryOrCreate
	// directory it creates. No container with a foreign UID ever writes here
	// (there is no kubelet, pods are simulated), so a world-writable 0777
	// would only widen access for nothing; and the 0700 root already keeps
	// other users out.
	dirMode fs.FileMode = 0o755
)

// ensureRoot creates the volume root if it is missing.
func ensureRoot(root string) error {
	if err := os.MkdirAll(root, rootMode); err != nil {
		return fmt.Errorf("creating volume root %s: %w", root, err)
	}
	return nil
}

// ensureDir creates root/name, or reuses it if it is already a directory:
// an earlier attempt, or an earlier run of the plane, may have made it, and
// its contents are never wiped. Every access goes through os.Root, so a
// symbolic link cannot lead it outside root.
func ensureDir(root, name string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("opening volume root: %w", err)
	}
	defer r.Close()
	err = r.Mkdir(name, dirMode)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return wrapIf(err, "creating volume directory %s", name)
	}
	fi, err := r.Lstat(name)
	if err != nil {
		return fmt.Errorf("checking volume directory %s: %w", name, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("volume path %s exists and is not a directory (%s)", name, fi.Mode().Type())
	}
	return nil
}

// removeDir removes root/name and everything in it; a missing directory is
// already removed. Through os.Root, neither name nor any symbolic link inside
// the directory can make it remove anything outside root.
func removeDir(root, name string) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("opening volume root: %w", err)
	}
	defer r.Close()
	if err := r.RemoveAll(name); err != nil {
		return fmt.Errorf("removing volume directory %s: %w", name, err)
	}
	return nil
}

// wrapIf wraps a non-nil err as "operation: err" and passes nil through.
func wrapIf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
