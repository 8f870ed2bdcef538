package migrate

import (
	"fmt"
	"os"
	"strings"
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
// business), named after the namespace, the set, now, a random part that
// keeps two migrations in the same second apart, and the kind:
// shop-web-20260102T150405Z-123456.sts.yaml and ….osts.yaml beside it.
func (p *Plan) writeFiles(dir string, now time.Time) (Files, error) {
	pattern := fmt.Sprintf("%s-%s-%s-*.%s.yaml", p.Namespace, p.Name, now.UTC().Format("20060102T150405Z"), p.From.Short())
	backup, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return Files{}, fmt.Errorf("writing the backup: %w", err)
	}
	f := Files{Backup: backup.Name()}
	f.Next = strings.TrimSuffix(f.Backup, "."+p.From.Short()+".yaml") + "." + p.To.Short() + ".yaml"
	if err := writeManifest(backup, recreatable(p.original)); err != nil {
		return Files{}, err
	}
	next, err := os.OpenFile(f.Next, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Files{}, fmt.Errorf("writing the new set's manifest: %w", err)
	}
	if err := writeManifest(next, p.next); err != nil {
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

// writeManifest writes obj as YAML into f and closes it.
func writeManifest(f *os.File, obj any) error {
	data, err := yaml.Marshal(obj)
	if err != nil {
		f.Close()
		return fmt.Errorf("encoding %s: %w", f.Name(), err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return nil
}
