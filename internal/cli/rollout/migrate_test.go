package rollout_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	budgets := client.PolicyV1().PodDisruptionBudgets(ns)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}}}
	if _, err := budgets.Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	held := ordinal(t, ns, "migrate", "osts/web", "--to", "sts", "--backup-dir", dir)
	if want := "PodDisruptionBudget web selects pods of web: apps/v1 deletes the pods of its rolling update without asking it"; held.code != 1 || !strings.Contains(held.err, want) {
		t.Errorf("migrating back under a budget: exit %d, stderr %q; want 1 and %q", held.code, held.err, want)
	}
	if err := budgets.Delete(context.Background(), "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	m = ordinal(t, ns, "migrate", "osts/web", "--to", "sts", "--backup-dir", dir).mustSucceed(t)
	mustContain(t, "migration back", m.out, "apps/v1 does not keep: spec.updateStrategy.rollingUpdate.respectDisruptionBudgets is true "+
		"(default true; apps/v1 deletes the pods of its rolling update without asking PodDisruptionBudgets)\n")
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

// TestMigrateNeedsOnlyTheDocumentedPermissions migrates a set there and
// back as a user bound to exactly the rules docs/rollout.md lists; with
// one missing, the migration says which before it changes anything.
func TestMigrateNeedsOnlyTheDocumentedPermissions(t *testing.T) {
	ns := namespace(t)
	createWeb(t, ns)
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"apps", "apps.ordinal.dev"}, Resources: []string{"statefulsets"}, Verbs: []string{"get", "create", "delete"}},
		{APIGroups: []string{"apps", "apps.ordinal.dev"}, Resources: []string{"statefulsets/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"persistentvolumeclaims"}, Verbs: []string{"list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"controllerrevisions"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"list"}},
	}
	ctx := context.Background()
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "migrator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "migrator"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "migrator"}},
	}
	if _, err := client.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	grant(t, ns, slices.Delete(slices.Clone(rules), 1, 2))
	denied := ordinal(t, ns, "migrate", "sts/web", "--as", "migrator", "--backup-dir", dir)
	if want := "ordinal: not migrating statefulset.apps/web: you may not update statefulsets/status.apps.ordinal.dev in namespace " + ns + "; nothing was changed\n"; denied.code != 1 || denied.err != want {
		t.Errorf("without the status permission: exit %d, stderr %q; want 1, %q", denied.code, denied.err, want)
	}
	getSet(t, ns)
	grant(t, ns, rules)
	ordinal(t, ns, "migrate", "sts/web", "--as", "migrator", "--backup-dir", dir).mustSucceed(t)
	ordinal(t, ns, "migrate", "osts/web", "--to", "apps/v1", "--as", "migrator", "--backup-dir", dir).mustSucceed(t)
	waitComplete(t, ns)
}

// grant makes the role "migrator" of ns hold exactly rules, and waits
// until the authorizer allows every one of them.
func grant(t *testing.T, ns string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx, roles := context.Background(), client.RbacV1().Roles(ns)
	role, err := roles.Get(ctx, "migrator", metav1.GetOptions{})
	if err != nil {
		role, err = roles.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "migrator"}}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	role.Rules = rules
	if _, err := roles.Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the authorizer to allow the role's rules", func(ctx context.Context) (bool, error) {
		for _, r := range rules {
			resource, sub, _ := strings.Cut(r.Resources[0], "/")
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "migrator",
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: r.Verbs[0], Group: r.APIGroups[0], Resource: resource, Subresource: sub}}}
			got, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			if err != nil || !got.Status.Allowed {
				return false, err
			}
		}
		return true, nil
	})
}
