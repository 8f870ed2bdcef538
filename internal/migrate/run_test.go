package migrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func TestAStoppedMigrationSaysTheStateAndHowToFinishOrUndo(t *testing.T) {
	files := Files{Backup: "/b/shop-web.sts.yaml", Next: "/b/shop-web.osts.yaml"}
	p := &Plan{From: setops.AppsV1, To: setops.ExtendedKind, Namespace: "shop", Name: "web"}
	tests := []struct {
		name string
		at   stage
		want string
	}{
		{"after the delete", deleted, `creating statefulset.apps.ordinal.dev/web: boom
state:     statefulset.apps/web is deleted; its pods, claims and revisions keep running without an owner, and nothing replaces a pod that fails
to finish: kubectl create -n shop -f /b/shop-web.osts.yaml (its controller adopts them)
to undo:   kubectl create -n shop -f /b/shop-web.sts.yaml`},
		{"after the create", created, `creating statefulset.apps.ordinal.dev/web: boom
state:     statefulset.apps.ordinal.dev/web exists; the pods and revisions it has not adopted keep running without an owner (is a controller of apps.ordinal.dev/v1alpha1 running?)
to finish: nothing: the controller of apps.ordinal.dev/v1alpha1 adopts them once it runs
to undo:   kubectl delete -n shop statefulset.apps.ordinal.dev/web --cascade=orphan, then kubectl create -n shop -f /b/shop-web.sts.yaml`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cause := errors.New("creating statefulset.apps.ordinal.dev/web: boom")
			err := p.stuck(tt.at, files, cause)
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if !errors.Is(err, cause) {
				t.Error("the cause is not wrapped")
			}
		})
	}
}

func TestTwoMigrationsInTheSameSecondKeepTheirFilesApart(t *testing.T) {
	dir, now := t.TempDir(), time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	there := &Plan{From: setops.AppsV1, To: setops.ExtendedKind, Namespace: "shop", Name: "web", original: &appsv1.StatefulSet{}, next: &v1alpha1.StatefulSet{}}
	back := &Plan{From: setops.ExtendedKind, To: setops.AppsV1, Namespace: "shop", Name: "web", original: &v1alpha1.StatefulSet{}, next: &appsv1.StatefulSet{}}
	seen := map[string]bool{}
	for _, p := range []*Plan{there, back, there} {
		f, err := p.writeFiles(dir, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{f.Backup, f.Next} {
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o600 || seen[path] {
				t.Errorf("%s: mode %v, written twice: %v", path, info.Mode().Perm(), seen[path])
			}
			seen[path] = true
		}
		if !strings.HasPrefix(filepath.Base(f.Backup), "shop-web-20260102T150405Z-") || !strings.HasSuffix(f.Backup, "."+p.From.Short()+".yaml") {
			t.Errorf("backup named %s", f.Backup)
		}
	}
}

func TestTheDryRunSaysWhetherTheRolloutGoesOn(t *testing.T) {
	tests := []struct {
		name, current, update, want string
	}{
		{"at rest", "web-1", "web-1", "  5. wait until the controller of apps.ordinal.dev/v1alpha1 adopts them at update revision web-1, with no pod restarted\n"},
		{"forced mid-rollout", "web-1", "web-2", "  5. wait until the controller of apps.ordinal.dev/v1alpha1 adopts them; its rollout goes on from revision web-1 to web-2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Plan{From: setops.AppsV1, To: setops.ExtendedKind, Namespace: "shop", Name: "web", CurrentRevision: tt.current, UpdateRevision: tt.update}
			var out strings.Builder
			p.Describe(&out, "/b")
			if !strings.HasSuffix(out.String(), tt.want) {
				t.Errorf("dry run:\n%s\nwant it to end with %q", out.String(), tt.want)
			}
		})
	}
}
