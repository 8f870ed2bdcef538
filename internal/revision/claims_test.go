package revision_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

var withClaims = revision.Options{Claims: true}

// Without Options.Claims a revision is apps/v1's to the byte, whatever the
// templates say, so a set that never asks for templates in its revisions
// keeps its revision names and its pods.
func TestARevisionWithoutClaimsIsAppsV1s(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.ClaimTemplates("www"))
	plain, err := revision.Patch(set)
	if err != nil {
		t.Fatal(err)
	}
	with, err := revision.PatchWith(set, revision.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, with) {
		t.Errorf("PatchWith without claims differs from Patch:\n%s\n%s", with, plain)
	}
	rev := testgen.RevisionOf(set, 1)
	if revision.HasClaims(rev) {
		t.Errorf("an apps/v1 revision is said to hold claim templates: %s", rev.Data.Raw)
	}
}

// With Options.Claims the templates are part of the revision: a new size
// is a new revision, and applying a revision restores its templates.
func TestARevisionWithClaimsHoldsAndRestoresTheTemplates(t *testing.T) {
	small := testgen.StatefulSet("web", testgen.ClaimTemplates("www"))
	large := small.DeepCopy()
	large.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	large.Spec.VolumeClaimTemplates[0].Status.Phase = corev1.ClaimBound // not part of a template's meaning
	a, err := revision.NewWith(small, 1, nil, withClaims)
	if err != nil {
		t.Fatal(err)
	}
	b, err := revision.NewWith(large, 2, nil, withClaims)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name == b.Name || !revision.HasClaims(a) {
		t.Fatalf("revisions %s and %s (claims %v): a new size must be a new revision that holds the templates", a.Name, b.Name, revision.HasClaims(a))
	}
	restored, err := revision.Apply(large, a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(small.Spec.VolumeClaimTemplates, restored.Spec.VolumeClaimTemplates); diff != "" {
		t.Errorf("restored templates (-want +got):\n%s", diff)
	}
	if !revision.SemanticallyEqualWith(small, a, withClaims) || revision.SemanticallyEqualWith(large, a, withClaims) {
		t.Error("semantic equality does not follow the templates")
	}
}

// Removing every template is a revision too, whose templates restore as
// none.
func TestARevisionWithoutTemplatesClearsThemWhenApplied(t *testing.T) {
	none := testgen.StatefulSet("web")
	rev, err := revision.NewWith(none, 1, nil, withClaims)
	if err != nil {
		t.Fatal(err)
	}
	restored, err := revision.Apply(testgen.StatefulSet("web", testgen.ClaimTemplates("www")), rev)
	if err != nil {
		t.Fatal(err)
	}
	if len(restored.Spec.VolumeClaimTemplates) != 0 || !revision.HasClaims(rev) {
		t.Errorf("restored templates %v from %s", restored.Spec.VolumeClaimTemplates, rev.Data.Raw)
	}
}

// A set that switches to revisions with claim templates gets a new
// revision, whatever its old one restores to: an apps/v1 revision holds no
// templates, so it cannot say which size it stands for.
func TestARevisionWithoutClaimsIsNotReusedForOneWithThem(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.ClaimTemplates("www"))
	old := testgen.RevisionOf(set, 1)
	if !revision.SemanticallyEqual(set, old) {
		t.Fatal("the apps/v1 revision does not even equal its own set")
	}
	if revision.SemanticallyEqualWith(set, old, withClaims) {
		t.Error("a revision without claim templates equals a set whose revisions hold them")
	}
	res, err := revision.ResolveWith(set, []*appsv1.ControllerRevision{old}, withClaims)
	if err != nil {
		t.Fatal(err)
	}
	if res.Update.Name == old.Name || !revision.HasClaims(res.Update) {
		t.Errorf("update revision %s (claims %v), want a new one holding the templates", res.Update.Name, revision.HasClaims(res.Update))
	}
}
