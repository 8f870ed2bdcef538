package plane

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/ordinal-sh/ordinal/internal/plane/ownership"
)

// dataDir is the on-disk layout of a plane:
//
//	lock        held (flock) while a plane runs, holds its pid
//	etcd/       etcd's member directory
//	pki/        CA, serving and client certificates, service-account key
//	pki/etcd/   etcd's own CA, etcd's serving and the API server's etcd client certificates
//	kubeconfig  the admin kubeconfig (mode 0600)
//	volumes/    one directory per provisioned volume
//	ports.json  etcd's ports, reused across restarts
//	logs/       etcd.log, nodes.log (and the command's own log)
type dataDir struct {
	root string
	lock *os.File
}

func (d *dataDir) path(elem ...string) string {
	return filepath.Join(append([]string{d.root}, elem...)...)
}

// openDataDir creates the directory if needed, checks that it is a usable
// directory and takes its lock. It never deletes or rewrites anything.
func openDataDir(root string) (*dataDir, error) {
	abs, err := PrepareDataDir(root)
	if err != nil {
		return nil, err
	}
	d := &dataDir{root: abs}
	if err := d.takeLock(); err != nil {
		return nil, err
	}
	return d, nil
}

// PrepareDataDir checks that root is, or can become, a readable directory,
// creates it and its logs/ directory, and returns its absolute path. It
// never deletes or rewrites anything.
func PrepareDataDir(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("data dir %s: %w", root, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("data dir %s is not a directory", abs)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("creating data dir: %w", err)
	}
	if err := checkPrivate("data dir", abs, false); err != nil {
		return "", err
	}
	if _, err := os.ReadDir(abs); err != nil {
		return "", fmt.Errorf("data dir %s is unreadable: %w", abs, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "logs"), 0o700); err != nil {
		return "", fmt.Errorf("creating log directory: %w", err)
	}
	return abs, nil
}

// checkPrivate refuses a file or directory that another user could have
// written: one owned by someone else, or writable by its group or by
// others (or, for a secret, readable by them), as ownership.Private
// judges. The data directory holds the certificate authorities the
// plane, its components and its kubeconfig trust; one planted by another
// user must never be loaded. A path that does not exist passes: the plane
// creates it, privately.
func checkPrivate(what, path string, secret bool) error {
	err := ownership.Private(path, secret)
	var refused *ownership.Error
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &refused):
		return fmt.Errorf("%s: %w", what, err)
	case refused.Owner >= 0:
		return fmt.Errorf("%s %w: another user could have planted the certificate authority it holds; pass a --data-dir of your own", what, err)
	}
	return fmt.Errorf("%s %w: another user could have planted or read the certificate authority it holds; "+
		"run chmod go-rwx %s if only you ever had access, or pass another --data-dir", what, err, path)
}

func (d *dataDir) takeLock() error {
	f, err := os.OpenFile(d.path("lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("data dir %s is not writable: %w", d.root, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		owner, _ := os.ReadFile(d.path("lock"))
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid := strings.TrimSpace(string(owner))
			return fmt.Errorf("data dir %s is in use by another ordinal up (pid %s); stop it or choose another --data-dir", d.root, pid)
		}
		return fmt.Errorf("locking data dir %s: %w", d.root, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	d.lock = f
	return nil
}

// release drops the lock; the directory and its contents stay.
func (d *dataDir) release() {
	if d.lock != nil {
		_ = syscall.Flock(int(d.lock.Fd()), syscall.LOCK_UN)
		_ = d.lock.Close()
		d.lock = nil
	}
}

// etcdPorts are remembered so that a restart finds etcd where its member
// record says it is.
type etcdPorts struct {
	Client int `json:"client"`
	Peer   int `json:"peer"`
}

func (d *dataDir) loadPorts() (etcdPorts, error) {
	var p etcdPorts
	raw, err := os.ReadFile(d.path("ports.json"))
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("reading %s: %w", d.path("ports.json"), err)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("%s is corrupt: %w", d.path("ports.json"), err)
	}
	return p, nil
}

func (d *dataDir) savePorts(p etcdPorts) error {
	raw, _ := json.Marshal(p)
	if err := os.WriteFile(d.path("ports.json"), raw, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", d.path("ports.json"), err)
	}
	return nil
}
