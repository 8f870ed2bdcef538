package revision_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func bigOverride(name string, ordinal int32, memory string) v1alpha1.OrdinalOverride {
	return v1alpha1.OrdinalOverride{Name: name, Ordinals: []intstr.IntOrString{intstr.FromInt32(ordinal)},
		Template: &v1alpha1.OverrideTemplate{Spec: &v1alpha1.OverridePodSpec{Containers: []v1alpha1.ContainerOverride{{
			Name: "nginx", Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}}}}}}}
}

// A set without overrides has the revision data, and so the revision
// names, of a set from before overrides existed, under either claim
// strategy: a nil list and an empty one alike.
func TestARevisionWithoutOverridesKeepsItsBytesAndHash(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.ClaimTemplates("www"))
	for _, claims := range []bool{false, true} {
		before, err := revision.PatchWith(set, revision.Options{Claims: claims})
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]v1alpha1.OrdinalOverride{nil, {}} {
			after, err := revision.PatchWith(set, revision.Options{Claims: claims, Overrides: list})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("claims %v, overrides %#v: data changed:\n%s\n%s", claims, list, before, after)
			}
		}
	}
	// The compatibility revision upstream's test pins keeps its name.
	data, err := revision.PatchWith(compatSet(), revision.Options{Overrides: []v1alpha1.OrdinalOverride{}})
	if err != nil {
		t.Fatal(err)
	}
	raw133 := strings.Replace(upstreamRaw133, `"creationTimestamp":null,`, "", 1)
	if string(data) != raw133 {
		t.Errorf("data %s, want %s", data, raw133)
	}
}

// Overrides are part of the revision: a change of one is a new revision,
// their order is not, and the revision gives them back.
func TestARevisionHoldsItsOverrides(t *testing.T) {
	set := testgen.StatefulSet("web")
	a, b := bigOverride("big", 0, "2Gi"), bigOverride("canary", 2, "1Gi")
	one, err := revision.NewWith(set, 1, nil, revision.Options{Overrides: []v1alpha1.OrdinalOverride{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	swapped, err := revision.NewWith(set, 1, nil, revision.Options{Overrides: []v1alpha1.OrdinalOverride{b, a}})
	if err != nil {
		t.Fatal(err)
	}
	changed, err := revision.NewWith(set, 1, nil, revision.Options{Overrides: []v1alpha1.OrdinalOverride{bigOverride("big", 0, "3Gi"), b}})
	if err != nil {
		t.Fatal(err)
	}
	plain := testgen.RevisionOf(set, 1)
	if one.Name != swapped.Name {
		t.Errorf("reordering the overrides changed the revision: %s, %s", one.Name, swapped.Name)
	}
	if one.Name == changed.Name || one.Name == plain.Name {
		t.Errorf("revisions %s (overrides), %s (one changed), %s (none) must all differ", one.Name, changed.Name, plain.Name)
	}
	got, err := revision.Overrides(swapped)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]v1alpha1.OrdinalOverride{a, b}, got); diff != "" {
		t.Errorf("overrides read back (-want +got):\n%s", diff)
	}
	if none, err := revision.Overrides(plain); none != nil || err != nil {
		t.Errorf("a revision without overrides gives %v, %v", none, err)
	}
	restored, err := revision.Apply(set, one)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(set.Spec.Template, restored.Spec.Template); diff != "" {
		t.Errorf("the template applied from a revision with overrides (-want +got):\n%s", diff)
	}
}

// A revision is semantically equal only to a set with its own overrides.
func TestSemanticEqualityComparesTheOverrides(t *testing.T) {
	set := testgen.StatefulSet("web")
	with := revision.Options{Overrides: []v1alpha1.OrdinalOverride{bigOverride("big", 0, "2Gi")}}
	rev, err := revision.NewWith(set, 1, nil, with)
	if err != nil {
		t.Fatal(err)
	}
	plain := testgen.RevisionOf(set, 1)
	if !revision.SemanticallyEqualWith(set, rev, with) {
		t.Error("a revision does not equal the set it was made from")
	}
	if revision.SemanticallyEqualWith(set, plain, with) {
		t.Error("a revision without overrides equals a set with them")
	}
	if revision.SemanticallyEqualWith(set, rev, revision.Options{}) {
		t.Error("a revision with overrides equals a set without them")
	}
	res, err := revision.ResolveWith(set, []*appsv1.ControllerRevision{plain}, with)
	if err != nil {
		t.Fatal(err)
	}
	if res.Write != revision.WriteCreate || res.Update.Name != rev.Name {
		t.Errorf("resolution %s of %s, want a create of %s", res.Write, res.Update.Name, rev.Name)
	}
}
