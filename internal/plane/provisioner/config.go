package provisioner

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
)

const (
	// DefaultName is the provisioner name written into the StorageClass and
	// into every volume's pv.kubernetes.io/provisioned-by annotation.
	DefaultName = "ordinal.dev/hostpath"
	// DefaultStorageClass is the name of the default StorageClass that
	// EnsureStorageClass creates.
	DefaultStorageClass = "standard"
)

// Config is what New and EnsureStorageClass need. The zero values of Name
// and StorageClass mean DefaultName and DefaultStorageClass.
type Config struct {
	// Client talks to the plane's kube-apiserver.
	Client kubernetes.Interface
	// Root is the directory under which each volume gets its own directory,
	// Root/<volume name>; typically DATA_DIR/volumes. It is created (0700,
	// like the data dir) if missing. A relative path is made absolute once,
	// in New, so volumes keep pointing at the same place.
	Root string
	// Name is the provisioner name a StorageClass names to get our volumes.
	Name string
	// StorageClass is the default class EnsureStorageClass creates.
	StorageClass string
	// Recorder receives the events on claims and volumes; nil means a
	// core/v1 event broadcaster writing through Client, run by Run.
	// Tests inject record.FakeRecorder here.
	Recorder record.EventRecorder
}

// withDefaults returns c with the empty optional fields filled in.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.StorageClass == "" {
		c.StorageClass = DefaultStorageClass
	}
	return c
}

// Validate reports every problem with c (after defaults) at once.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("client is required"))
	}
	if strings.TrimSpace(c.Root) == "" {
		errs = append(errs, errors.New("root directory is required"))
	}
	// The API server validates a StorageClass's provisioner as a qualified
	// name; a name it would reject could never match a class.
	if msgs := validation.IsQualifiedName(c.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("provisioner name %q: %s", c.Name, strings.Join(msgs, "; ")))
	}
	if msgs := validation.IsDNS1123Subdomain(c.StorageClass); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("storage class name %q: %s", c.StorageClass, strings.Join(msgs, "; ")))
	}
	return errors.Join(errs...)
}

// absRoot returns Root as a clean absolute path: volume paths are compared
// with it textually, so it must have one spelling.
func (c Config) absRoot() (string, error) {
	abs, err := filepath.Abs(c.Root)
	if err != nil {
		return "", fmt.Errorf("resolving volume root %s: %w", c.Root, err)
	}
	return abs, nil
}
