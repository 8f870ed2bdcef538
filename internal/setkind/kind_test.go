package setkind

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Every kind there is is in All and has a row in the table, and no two
// rows share what tells kinds apart: a kind added to the constants but
// not to All or the table fails here, not in a sync.
func TestEveryKindHasItsOwnFacts(t *testing.T) {
	if len(All) != int(end)-1 || len(table) != len(All) {
		t.Fatalf("%d kinds, All has %d and the table %d", int(end)-1, len(All), len(table))
	}
	seen := map[string]Kind{}
	for k := Any + 1; k < end; k++ {
		f, ok := table[k]
		if !ok {
			t.Errorf("%s has no row in the table", k)
			continue
		}
		for _, v := range []string{"gvk " + f.gvk.String(), "resource " + f.resource, "short " + f.short, "key prefix " + f.keyPrefix} {
			if other, dup := seen[v]; dup {
				t.Errorf("%s and %s share the %s", other, k, v)
			}
			seen[v] = k
		}
	}
}

func TestAKeyNamesItsKindNamespaceAndName(t *testing.T) {
	keys := map[string]Kind{}
	for _, k := range All {
		key := k.Key("shop", "web")
		if other, dup := keys[key]; dup {
			t.Errorf("%s and %s sets of one name share the key %q", other, k, key)
		}
		keys[key] = k
		kind, ns, name, ok := ParseKey(key)
		if !ok || kind != k || ns != "shop" || name != "web" {
			t.Errorf("ParseKey(%q) = %s %q %q %v, want %s shop web", key, kind, ns, name, ok, k)
		}
	}
	if got := AppsV1.Key("shop", "web"); got != "shop/web" {
		t.Errorf("an apps/v1 key is %q, want upstream's shop/web", got)
	}
	// A namespace named like a prefix is still a namespace.
	if kind, ns, _, ok := ParseKey("osts/web"); !ok || kind != AppsV1 || ns != "osts" {
		t.Errorf("ParseKey(osts/web) = %s in %q, %v; want apps/v1 in osts", kind, ns, ok)
	}
	for _, bad := range []string{"", "web", "osts:", "osts:web", "/web", "shop/", "osts:shop/web/x"} {
		if kind, _, _, ok := ParseKey(bad); ok {
			t.Errorf("ParseKey(%q) = %s, want no key", bad, kind)
		}
	}
}

func TestASetsTypeAndAnOwnerReferenceNameTheirKind(t *testing.T) {
	for _, k := range All {
		set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "u1"}}
		set.SetGroupVersionKind(k.GroupVersionKind())
		if got := Of(set); got != k {
			t.Errorf("Of a set typed %s = %s", k.GroupVersionKind(), got)
		}
		ref := metav1.NewControllerRef(set, k.GroupVersionKind())
		if got, ok := OfOwner(ref); !ok || got != k {
			t.Errorf("OfOwner(%s %s) = %s, %v; want %s", ref.APIVersion, ref.Kind, got, ok, k)
		}
	}
	if got := Of(&appsv1.StatefulSet{}); got != AppsV1 {
		t.Errorf("a set from a typed informer, with no type, is %s; want apps/v1", got)
	}
	for _, ref := range []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet"}, {APIVersion: "apps/v1beta1", Kind: "StatefulSet"}} {
		if got, ok := OfOwner(&ref); ok {
			t.Errorf("OfOwner(%s %s) = %s, want none", ref.APIVersion, ref.Kind, got)
		}
	}
}

func TestTheKindsSpellThemselvesAsKubectlDoes(t *testing.T) {
	want := map[Kind][4]string{
		AppsV1:   {"apps", "apps/v1", "statefulset.apps", "sts"},
		Extended: {"apps.ordinal.dev", "apps.ordinal.dev/v1alpha1", "statefulset.apps.ordinal.dev", "osts"},
	}
	for _, k := range All {
		w, ok := want[k]
		if !ok {
			t.Errorf("no spelling expected for %s; add it here", k)
			continue
		}
		if got := [4]string{k.Group(), k.APIVersion(), k.Resource(), k.Short()}; got != w {
			t.Errorf("%s spells itself %q, want %q", k, got, w)
		}
	}
}

func TestAKindWithoutFactsFailsLoudly(t *testing.T) {
	for _, k := range []Kind{Any, end} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "has no facts") {
					t.Errorf("%s.Resource() recovered %v, want a panic naming the missing facts", k, r)
				}
			}()
			_ = k.Resource()
		}()
	}
}
