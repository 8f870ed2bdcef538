package rollout_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// backedUp is the path the migration printed for its backup.
var backedUp = regexp.MustCompile(`(?m)^backed up \S+ to (\S+)$`)

// TestMigrateCommandMovesASetToTheExtendedKindAndBack runs `ordinal
// migrate` on the plane's own controller: the dry run changes nothing, the
// migration keeps the pods and the history `rollout history` shows, the
// backup is a recreatable manifest only its owner can read, and the set
// comes back to apps/v1 the same way.
func TestMigrateCommandMovesASetToTheExtendedKindAndBack(t *testing.T) {
	ns := namespace(t)
	createWeb(t, ns)
	setImage(t, ns, imageNew)
	waitComplete(t, ns)
	history := ordinal(t, ns, "rollout", "history", "sts/web").mustSucceed(t)
	web0 := getPod(t, ns, "web-0").UID

	dry := ordinal(t, ns, "migrate", "sts/web", "--dry-run").mustSucceed(t)
	mustContain(t, "dry run", dry.out,
		"would migrate statefulset.apps/web to statefulset.apps.ordinal.dev/web (the API server accepts the new set in a dry run):\n",
		"pods web-0, web-1, web-2 and revisions ")
	getSet(t, ns)

	dir := t.TempDir()
	m := ordinal(t, ns, "migrate", "sts/web", "--backup-dir", dir).mustSucceed(t)
	if got := lastLine(m.out); !strings.HasPrefix(got, "statefulset.apps.ordinal.dev/web adopted 3 pods and 2 revisions at update revision ") ||
		!strings.HasSuffix(got, "; no pod was restarted") {
		t.Errorf("migration ended with %q", got)
	}
	checkBackup(t, m.out, dir)
	moved := ordinal(t, ns, "rollout", "history", "osts/web").mustSucceed(t)
	if got, want := historyRows(moved.out), historyRows(history.out); len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("history after the migration %v, before %v", got, want)
	}

	again := ordinal(t, ns, "migrate", "osts/web", "--to", "apps.ordinal.dev/v1alpha1")
	if again.code != 1 || again.err != "ordinal: statefulset.apps.ordinal.dev/web is already of kind apps.ordinal.dev/v1alpha1\n" {
		t.Errorf("migrating to the same kind: exit %d, stderr %q", again.code, again.err)
	}
	ordinal(t, ns, "migrate", "osts/web", "--to", "sts", "--backup-dir", dir).mustSucceed(t)
	back := waitComplete(t, ns)
	if got := getPod(t, ns, "web-0").UID; got != web0 {
		t.Errorf("web-0 is a new pod (%s, was %s)", got, web0)
	}
	if back.Spec.Template.Spec.Containers[0].Image != imageNew {
		t.Errorf("the apps/v1 set came back with image %s", back.Spec.Template.Spec.Containers[0].Image)
	}
}

// checkBackup checks that the printed backup is mode 0600 and an apps/v1
// manifest without the fields the API server sets.
func checkBackup(t *testing.T, out, dir string) {
	t.Helper()
	match := backedUp.FindStringSubmatch(out)
	if match == nil || filepath.Dir(match[1]) != dir {
		t.Fatalf("no backup in %s printed: %q", dir, out)
	}
	info, err := os.Stat(match[1])
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", info.Mode().Perm())
	}
	data, err := os.ReadFile(match[1])
	if err != nil {
		t.Fatal(err)
	}
	var set appsv1.StatefulSet
	if err := yaml.UnmarshalStrict(data, &set); err != nil {
		t.Fatalf("backup is not a StatefulSet: %v", err)
	}
	if set.APIVersion != "apps/v1" || set.Kind != "StatefulSet" || set.UID != "" || set.ResourceVersion != "" || set.ManagedFields != nil || set.Name != "web" {
		t.Errorf("backup metadata %+v %+v", set.TypeMeta, set.ObjectMeta)
	}
}
