package setops

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestUndoTargetIsKubectlsChoice(t *testing.T) {
	set := testgen.StatefulSet("web")
	r1, r2, r3 := testgen.RevisionOf(set, 1), testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image("app:2")), 2), testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image("app:3")), 3)
	revs := []*appsv1.ControllerRevision{r1, r2, r3}
	tests := []struct {
		name string
		revs []*appsv1.ControllerRevision
		to   int64
		want *appsv1.ControllerRevision
		err  string
	}{
		{"zero is the one before the newest", revs, 0, r2, ""},
		{"a number is that revision", revs, 1, r1, ""},
		{"a missing number is not found, in kubectl's words", revs, 9, nil, "unable to find specified revision 9 in history"},
		{"one revision has nothing to go back to", revs[:1], 0, nil, "no last revision to roll back to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UndoTarget(tt.revs, tt.to)
			switch {
			case tt.err != "":
				if err == nil || err.Error() != tt.err || !errors.Is(err, ErrNotFound) {
					t.Errorf("UndoTarget = %v, want %q matching ErrNotFound", err, tt.err)
				}
			case err != nil || got != tt.want:
				t.Errorf("UndoTarget = %v, %v; want %s", got, err, tt.want.Name)
			}
		})
	}
}

func TestTemplateDiffLabelsAndComparesTwoRevisions(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Image("app:2"))
	r1 := testgen.RevisionOf(testgen.StatefulSet("web"), 1)
	r2 := testgen.RevisionOf(set, 2)
	revs := []*appsv1.ControllerRevision{r1, r2}
	d, err := TemplateDiff(set, revs, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d.Same() || d.LabelA != "revision 1 ("+r1.Name+")" || d.LabelB != "revision 2 ("+r2.Name+")" {
		t.Errorf("diff of two templates: same %v, labels %q and %q", d.Same(), d.LabelA, d.LabelB)
	}
	if same, err := TemplateDiff(set, revs, 2, 2); err != nil || !same.Same() {
		t.Errorf("a revision against itself: same %v, err %v", same.Same(), err)
	}
	if _, err := TemplateDiff(set, revs, 1, 4); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing revision: %v, want ErrNotFound", err)
	}
}
