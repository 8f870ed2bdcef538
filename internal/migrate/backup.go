package migrate

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Files are where a migration keeps the old set (Backup) and the new
// one's manifest (Next), so that either can be created by hand with
// `kubectl create -f` if the migration stops half-way.
type Files struct {
	Backup, Next string
}

// writeFiles writes both manifests into dir, readable by the owner only
// (a pod template may carry configuration that is nobody else's
// business), named after the namespace, the set, the kind and now.
func (p *Plan) writeFiles(dir string, now time.Time) (Files, error) {
	stamp := now.UTC().Format("20060102T150405Z")
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-%s", p.Namespace, p.Name, stamp))
	f := Files{Backup: base + "." + p.From.Short() + ".yaml", Next: base + "." + p.To.Short() + ".yaml"}
	if err := writeManifest(f.Backup, recreatable(p.original)); err != nil {
		return Files{}, err
	}
	if err := writeManifest(f.Next, p.next); err != nil {
		return Files{}, err
	}
	return f, nil
}

// recreatable is the set as read without the fields the API server sets,
// so `kubectl create -f` takes it back; its status stays, for the record
// (the API server ignores it on create).
func recreatable(obj any) any {
	var meta *metav1.ObjectMeta
	switch s := obj.(type) {
	case *appsv1.StatefulSet:
		s = s.DeepCopy()
		s.APIVersion, s.Kind = "apps/v1", "StatefulSet"
		meta, obj = &s.ObjectMeta, s
	case *v1alpha1.StatefulSet:
		s = s.DeepCopy()
		s.APIVersion, s.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.Kind.Kind
		meta, obj = &s.ObjectMeta, s
	}
	meta.UID, meta.ResourceVersion, meta.Generation = "", "", 0
	meta.CreationTimestamp, meta.ManagedFields = metav1.Time{}, nil
	return obj
}

func writeManifest(path string, obj any) error {
	data, err := yaml.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing the backup: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing the backup %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the backup %s: %w", path, err)
	}
	return nil
}
