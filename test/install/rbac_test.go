package install

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ordinal-sh/ordinal/internal/cli/doctor"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// rbacKinds are the kinds that grant or hold permissions.
var rbacKinds = map[string]bool{"ServiceAccount": true, "ClusterRole": true, "ClusterRoleBinding": true, "Role": true, "RoleBinding": true}

// access is what an RBAC object grants, with labels and comments left out:
// identity, rules, role reference and subjects.
type access struct {
	Kind, Namespace, Name string
	Rules                 []rbacv1.PolicyRule
	RoleRef               rbacv1.RoleRef
	Subjects              []rbacv1.Subject
}

func accessOf(t *testing.T, manifest string) []access {
	t.Helper()
	var out []access
	for _, o := range objects(t, manifest) {
		if !rbacKinds[o.GetKind()] {
			continue
		}
		var typed struct {
			Rules    []rbacv1.PolicyRule `json:"rules"`
			RoleRef  rbacv1.RoleRef      `json:"roleRef"`
			Subjects []rbacv1.Subject    `json:"subjects"`
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &typed); err != nil {
			t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
		}
		out = append(out, access{Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName(),
			Rules: typed.Rules, RoleRef: typed.RoleRef, Subjects: typed.Subjects})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Kind+"/"+out[i].Namespace+"/"+out[i].Name < out[j].Kind+"/"+out[j].Namespace+"/"+out[j].Name
	})
	return out
}

func find(t *testing.T, all []access, kind, name string) access {
	t.Helper()
	for _, a := range all {
		if a.Kind == kind && a.Name == name {
			return a
		}
	}
	t.Fatalf("no %s %s among %v", kind, name, all)
	return access{}
}

// With the release name "ordinal" in ordinal-system, the chart grants
// exactly what config/ grants, to the same account under the same names.
func TestTheChartGrantsExactlyWhatConfigGrants(t *testing.T) {
	want := accessOf(t, buildConfig(t))
	got := accessOf(t, releases["default"].mustRender(t))
	if len(want) != 12 {
		t.Fatalf("config/ has %d RBAC objects, want a ServiceAccount, a ClusterRole and binding, two Roles and bindings, "+
			"the metrics-auth ClusterRole and binding, the metrics-reader ClusterRole, the claim-deleter and the config-secrets ClusterRoles", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RBAC (-config/ +chart):\n%s", diff)
	}
}

// With manageAppsV1 false, the chart grants exactly what config/ with the
// extended-only component grants: nothing on apps/v1 StatefulSets.
func TestTheChartWithManageAppsV1FalseGrantsWhatExtendedOnlyGrants(t *testing.T) {
	want := accessOf(t, buildOverlay(t, "extended-only"))
	got := accessOf(t, release{name: "ordinal", namespace: "ordinal-system", values: "manageAppsV1: false\n"}.mustRender(t))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RBAC (-config/ with extended-only +chart):\n%s", diff)
	}
	for _, r := range find(t, got, "ClusterRole", "ordinal-statefulset-controller").Rules {
		if slices.Contains(r.APIGroups, "apps") && slices.ContainsFunc(r.Resources, func(res string) bool { return strings.HasPrefix(res, "statefulsets") }) {
			t.Errorf("the controller may %v apps %v with manageAppsV1 false", r.Verbs, r.Resources)
		}
	}
}

// Watching one namespace (with manageAppsV1 false), the chart grants the
// extended-only ClusterRole's rules of namespaced resources as a Role in
// that namespace, and nothing cluster-wide.
func TestTheChartWatchingOneNamespaceGrantsNothingClusterWide(t *testing.T) {
	config := find(t, accessOf(t, buildOverlay(t, "extended-only")), "ClusterRole", "ordinal-statefulset-controller")
	got := accessOf(t, releases["one-namespace"].mustRender(t))
	role := find(t, got, "Role", "ordinal-statefulset-controller")
	if role.Namespace != "apps" {
		t.Errorf("the controller's Role is in %q, want the watched namespace apps", role.Namespace)
	}
	namespaced := slices.DeleteFunc(slices.Clone(config.Rules), func(r rbacv1.PolicyRule) bool {
		return slices.Equal(r.Resources, []string{"storageclasses"}) || slices.Equal(r.Resources, []string{"nodes", "persistentvolumes"})
	})
	if len(namespaced) != len(config.Rules)-2 {
		t.Fatalf("config/'s ClusterRole lacks the StorageClass or the Node and PersistentVolume rule: %v", config.Rules)
	}
	if diff := cmp.Diff(namespaced, role.Rules); diff != "" {
		t.Errorf("Role rules (-config/'s ClusterRole +chart):\n%s", diff)
	}
	// The secure metrics port's reviews are cluster-scoped: its ClusterRole
	// and binding, and the scrapers' ClusterRole, are the only cluster-wide
	// objects, granting the controller nothing but to ask.
	all := accessOf(t, buildConfig(t))
	metrics := []access{find(t, all, "ClusterRole", "ordinal-metrics-auth"), find(t, all, "ClusterRole", "ordinal-metrics-reader"),
		find(t, all, "ClusterRoleBinding", "ordinal-metrics-auth")}
	var cluster []access
	for _, a := range got {
		if strings.HasPrefix(a.Kind, "Cluster") {
			cluster = append(cluster, a)
		}
	}
	if diff := cmp.Diff(metrics, cluster); diff != "" {
		t.Errorf("cluster-wide objects watching one namespace (-config/'s metrics RBAC +chart):\n%s", diff)
	}
	plain := release{name: "ordinal", namespace: "ordinal-system", values: "watchNamespace: apps\nmetrics: {secure: false}\n"}
	for _, a := range accessOf(t, plain.mustRender(t)) {
		if strings.HasPrefix(a.Kind, "Cluster") {
			t.Errorf("watching one namespace with plain metrics renders %s %s", a.Kind, a.Name)
		}
	}
}

// The controller may delete claims in no namespace but those that opt in:
// no ClusterRoleBinding grants delete on claims, and the chart binds the
// claim-deleter ClusterRole in each namespace of claimDeletion.namespaces,
// as config/'s example RoleBinding does in one.
func TestOnlyTheNamespacesThatOptInLetTheControllerDeleteClaims(t *testing.T) {
	for name, manifest := range map[string]string{"config/": buildConfig(t), "the chart": releases["default"].mustRender(t)} {
		for _, a := range accessOf(t, manifest) {
			if a.Kind != "ClusterRole" || a.Name == planner.ClaimDeleterRole {
				continue
			}
			for _, call := range calls(a.Rules) {
				if call == " persistentvolumeclaims delete" || call == " persistentvolumeclaims *" {
					t.Errorf("%s: ClusterRole %s lets the controller delete claims everywhere", name, a.Name)
				}
			}
		}
	}
	example := accessOf(t, readFile(t, repo(t, "config", "claim-deletion-rolebinding.yaml")))
	got := accessOf(t, release{name: "ordinal", namespace: "ordinal-system", values: "claimDeletion: {namespaces: [db, queue]}\n"}.mustRender(t))
	var bindings []access
	for _, a := range got {
		if a.Kind == "RoleBinding" && a.RoleRef.Name == planner.ClaimDeleterRole {
			bindings = append(bindings, a)
		}
	}
	if len(example) != 1 || len(bindings) != 2 {
		t.Fatalf("config/'s example has %d objects, want one RoleBinding; the chart binds the claim deleter %d times, want twice (db, queue)", len(example), len(bindings))
	}
	for i, ns := range []string{"db", "queue"} {
		want := example[0]
		want.Namespace = ns
		if diff := cmp.Diff(want, bindings[i]); diff != "" {
			t.Errorf("RoleBinding in %s (-config/'s example +chart):\n%s", ns, diff)
		}
	}
}

// configSecretsRole is config/'s ClusterRole for Secrets a namespace
// opts in to (docs/config-revisions.md#secrets).
const configSecretsRole = "ordinal-config-secrets"

// The controller may read Secrets in no namespace but those that opt in:
// no other role grants anything on secrets, and the chart binds the
// config-secrets ClusterRole in each namespace of
// configSecrets.namespaces, as config/'s example RoleBinding does in one;
// a controller of one namespace gets a Role and binding there instead.
func TestOnlyTheNamespacesThatOptInLetTheControllerReadSecrets(t *testing.T) {
	for name, manifest := range map[string]string{"config/": buildConfig(t), "the chart": releases["default"].mustRender(t),
		"the chart of one namespace": releases["one-namespace"].mustRender(t)} {
		for _, a := range accessOf(t, manifest) {
			if a.Name == configSecretsRole {
				continue
			}
			for _, call := range calls(a.Rules) {
				if strings.HasPrefix(call, " secrets ") {
					t.Errorf("%s: %s %s grants %q", name, a.Kind, a.Name, call)
				}
			}
		}
	}
	example := accessOf(t, readFile(t, repo(t, "config", "config-secrets-rolebinding.yaml")))
	got := accessOf(t, release{name: "ordinal", namespace: "ordinal-system", values: "configSecrets: {namespaces: [db, queue]}\n"}.mustRender(t))
	var bindings []access
	for _, a := range got {
		if a.Kind == "RoleBinding" && a.RoleRef.Name == configSecretsRole {
			bindings = append(bindings, a)
		}
	}
	if len(example) != 1 || len(bindings) != 2 {
		t.Fatalf("config/'s example has %d objects, want one RoleBinding; the chart binds the Secret role %d times, want twice (db, queue)", len(example), len(bindings))
	}
	for i, ns := range []string{"db", "queue"} {
		want := example[0]
		want.Namespace = ns
		if diff := cmp.Diff(want, bindings[i]); diff != "" {
			t.Errorf("RoleBinding in %s (-config/'s example +chart):\n%s", ns, diff)
		}
	}
	one := accessOf(t, release{name: "ordinal", namespace: "ordinal-system", values: "watchNamespace: db\nmanageAppsV1: false\nconfigSecrets: {namespaces: [db]}\n"}.mustRender(t))
	role, binding := find(t, one, "Role", configSecretsRole), find(t, one, "RoleBinding", configSecretsRole)
	if role.Namespace != "db" || binding.Namespace != "db" || binding.RoleRef.Kind != "Role" {
		t.Errorf("watching db: Role in %q, RoleBinding in %q of a %s; want both in db, of the Role", role.Namespace, binding.Namespace, binding.RoleRef.Kind)
	}
	if diff := cmp.Diff(find(t, accessOf(t, buildConfig(t)), "ClusterRole", configSecretsRole).Rules, role.Rules); diff != "" {
		t.Errorf("the Role's rules (-config/'s ClusterRole +chart):\n%s", diff)
	}
}

// `ordinal doctor` checks the controller's account for exactly the calls
// config/'s roles grant, and with the extended-only component for exactly
// the calls its ClusterRole keeps.
func TestTheDoctorChecksExactlyTheCallsConfigGrants(t *testing.T) {
	all, extendedOnly := accessOf(t, buildConfig(t)), accessOf(t, buildOverlay(t, "extended-only"))
	notAppsV1 := slices.DeleteFunc(slices.Clone(doctor.ControllerPermissions), func(p doctor.Permission) bool { return p.AppsV1Only })
	for _, tc := range []struct {
		role  access
		perms []doctor.Permission
	}{
		{find(t, all, "ClusterRole", "ordinal-statefulset-controller"), doctor.ControllerPermissions},
		{find(t, extendedOnly, "ClusterRole", "ordinal-statefulset-controller"), notAppsV1},
		{find(t, all, "Role", "ordinal-leader-election"), doctor.LeasePermissions},
		{find(t, all, "ClusterRole", "ordinal-metrics-auth"), doctor.MetricsAuthPermissions},
		{find(t, all, "ClusterRole", planner.ClaimDeleterRole), doctor.ClaimDeletionPermissions},
		{find(t, all, "ClusterRole", configSecretsRole), doctor.ConfigSecretPermissions},
	} {
		var fromDoctor []string
		for _, p := range tc.perms {
			for _, v := range p.Verbs {
				call := p.Group + " " + p.Resource + " " + v
				if p.Named {
					call += " " + doctor.DefaultLeaseName
				}
				fromDoctor = append(fromDoctor, call)
			}
		}
		if diff := cmp.Diff(calls(tc.role.Rules), sorted(fromDoctor)); diff != "" {
			t.Errorf("%s %s (-config/ +doctor):\n%s", tc.role.Kind, tc.role.Name, diff)
		}
	}
}

// calls expands rules into "group resource verb" lines, with the name a
// rule limits the call to.
func calls(rules []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rules {
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					for _, n := range names {
						call := g + " " + res + " " + v
						if n != "" {
							call += " " + n
						}
						out = append(out, call)
					}
				}
			}
		}
	}
	return sorted(out)
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}
