package rollout

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// rollout history --revision=N prints the revision's overrides after its
// template, and nothing more for a revision without any.
func TestHistoryShowsARevisionsOverrides(t *testing.T) {
	set := testgen.StatefulSet("web")
	with, err := revision.NewWith(set, 2, nil, revision.Options{Overrides: []v1alpha1.OrdinalOverride{{Name: "big",
		Ordinals: []intstr.IntOrString{intstr.FromString("0-1")}, Template: &v1alpha1.OverrideTemplate{Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "big"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := showOverrides(&b, with); err != nil {
		t.Fatal(err)
	}
	if want := "Overrides:\n  - name: big\n    ordinals:\n    - 0-1\n    template:\n      metadata:\n        labels:\n          tier: big\n"; b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := showOverrides(&b, testgen.RevisionOf(set, 1)); err != nil || b.Len() != 0 {
		t.Errorf("a revision without overrides printed %q (%v)", b.String(), err)
	}
}
