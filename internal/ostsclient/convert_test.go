package ostsclient

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// quantities compare by value: a parsed Quantity caches its string.
var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestEveryFieldSurvivesTheRoundTripThroughUnstructured(t *testing.T) {
	want := fullSet("ns", "web")
	u, err := ToUnstructured(want)
	if err != nil {
		t.Fatal(err)
	}
	if u.GetAPIVersion() != "apps.ordinal.dev/v1alpha1" || u.GetKind() != "StatefulSet" {
		t.Errorf("apiVersion %q kind %q, want apps.ordinal.dev/v1alpha1 StatefulSet", u.GetAPIVersion(), u.GetKind())
	}
	got, err := FromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	want.APIVersion, want.Kind = "apps.ordinal.dev/v1alpha1", "StatefulSet"
	if diff := cmp.Diff(want, got, quantities); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// The JSON names are apps/v1's, and the kind's own follow the API
// conventions; the unstructured form is what the API server stores.
func TestTheUnstructuredFormUsesTheAPIsJSONNames(t *testing.T) {
	u, err := ToUnstructured(fullSet("ns", "web"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"spec", "replicas"}, int64(3)},
		{[]string{"spec", "podManagementPolicy"}, "Parallel"},
		{[]string{"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"}, "50%"},
		{[]string{"spec", "updateStrategy", "rollingUpdate", "onFailure"}, "Rollback"},
		{[]string{"spec", "updateStrategy", "rollingUpdate", "selfHealing"}, "Disabled"},
		{[]string{"spec", "progressDeadlineSeconds"}, int64(120)},
		{[]string{"spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"}, "Delete"},
		{[]string{"status", "lastCompletedRevision"}, "web-a"},
		{[]string{"status", "rollback", "time"}, "2026-11-22T04:45:37Z"},
	} {
		got, found, err := unstructured.NestedFieldNoCopy(u.Object, c.path...)
		if err != nil || !found || got != c.want {
			t.Errorf("%s = %#v (found %v, %v), want %#v", strings.Join(c.path, "."), got, found, err, c.want)
		}
	}
}

func TestAnObjectThatDoesNotConvertIsAnErrorNamingIt(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.ordinal.dev/v1alpha1", "kind": "StatefulSet",
		"metadata": map[string]any{"namespace": "ns", "name": "web"},
		"spec":     map[string]any{"replicas": "three"},
	}}
	_, err := FromUnstructured(u)
	if err == nil || !strings.HasPrefix(err.Error(), "converting StatefulSet ns/web: ") {
		t.Errorf("got error %v, want one naming StatefulSet ns/web", err)
	}
}

// A set built in Go with no update strategy must send none, not an empty
// one: the API server then defaults the rollingUpdate block as apps/v1 does
// for the same Go object (an empty strategy would get a type and no block).
func TestAZeroUpdateStrategyIsLeftOutForTheServerToDefault(t *testing.T) {
	set := fullSet("ns", "web")
	set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{}
	u, err := ToUnstructured(set)
	if err != nil {
		t.Fatal(err)
	}
	if got, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "updateStrategy"); found {
		t.Errorf("spec.updateStrategy sent as %#v, want it left out", got)
	}
}
