package setops

import (
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/rolloutview"
)

// FindRevision finds revision number n among revs; missing matches
// ErrNotFound, with kubectl's message.
func FindRevision(revs []*appsv1.ControllerRevision, n int64) (*appsv1.ControllerRevision, error) {
	for _, r := range revs {
		if r.Revision == n {
			return r, nil
		}
	}
	return nil, &notFound{fmt.Sprintf("unable to find specified revision %d in history", n)}
}

// UndoTarget is kubectl's findHistory: revision to, or the second-highest
// when to is 0. revs are sorted oldest first.
func UndoTarget(revs []*appsv1.ControllerRevision, to int64) (*appsv1.ControllerRevision, error) {
	if to == 0 {
		if len(revs) <= 1 {
			return nil, &notFound{"no last revision to roll back to"}
		}
		return revs[len(revs)-2], nil
	}
	return FindRevision(revs, to)
}

// TemplateOf is the template the set would have at rev: the revision
// applied to the live set, as kubectl does.
func TemplateOf(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision) (*corev1.PodTemplateSpec, error) {
	applied, err := revision.Apply(set, rev)
	if err != nil {
		return nil, fmt.Errorf("applying revision %d (%s): %w", rev.Revision, rev.Name, err)
	}
	return &applied.Spec.Template, nil
}

// TemplateText is revision n's template as YAML, and the label a diff
// gives it: "revision 2 (web-5c9f486cd7)".
func TemplateText(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, n int64) (text, label string, err error) {
	rev, err := FindRevision(revs, n)
	if err != nil {
		return "", "", err
	}
	tmpl, err := TemplateOf(set, rev)
	if err != nil {
		return "", "", err
	}
	out, err := yaml.Marshal(tmpl)
	if err != nil {
		return "", "", fmt.Errorf("encoding the template of revision %d: %w", n, err)
	}
	return string(out), fmt.Sprintf("revision %d (%s)", n, rev.Name), nil
}

// Diff is the templates of two revisions of a set, with their labels, and
// when either revision holds overrides, the effective template of each
// override group at both.
type Diff struct {
	LabelA, LabelB string
	TextA, TextB   string
	Groups         []GroupDiff
}

// GroupDiff is the effective template of the pods of one override (by
// name) at two revisions; an override a revision does not hold gives its
// pods the revision's template there.
type GroupDiff struct {
	Name                 string
	OrdinalsA, OrdinalsB string
	TextA, TextB         string
}

// Same says whether the two templates, and every group's, are equal.
func (d Diff) Same() bool {
	for _, g := range d.Groups {
		if g.TextA != g.TextB {
			return false
		}
	}
	return d.TextA == d.TextB
}

// Render writes the unified diff of the templates, then, for each
// override group whose effective template differs, its own: the pods of
// its ordinals run that template rather than the one above.
func (d Diff) Render(w io.Writer) {
	rolloutview.Diff(w, d.LabelA, d.LabelB, d.TextA, d.TextB)
	for _, g := range d.Groups {
		rolloutview.Diff(w, fmt.Sprintf("%s override %s (ordinals %s)", d.LabelA, g.Name, g.OrdinalsA),
			fmt.Sprintf("%s override %s (ordinals %s)", d.LabelB, g.Name, g.OrdinalsB), g.TextA, g.TextB)
	}
}

// TemplateDiff reads the templates of revisions a and b of the set; Render
// writes them.
func TemplateDiff(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, a, b int64) (Diff, error) {
	var d Diff
	var err error
	if d.TextA, d.LabelA, err = TemplateText(set, revs, a); err != nil {
		return Diff{}, err
	}
	if d.TextB, d.LabelB, err = TemplateText(set, revs, b); err != nil {
		return Diff{}, err
	}
	revA, _ := FindRevision(revs, a)
	revB, _ := FindRevision(revs, b)
	if d.Groups, err = groupDiffs(set, revA, revB); err != nil {
		return Diff{}, err
	}
	return d, nil
}

// groupDiffs is the effective template of each override group, by name,
// at revisions a and b; none when neither holds overrides.
func groupDiffs(set *appsv1.StatefulSet, a, b *appsv1.ControllerRevision) ([]GroupDiff, error) {
	type side struct {
		base      *corev1.PodTemplateSpec
		overrides map[string]v1alpha1.OrdinalOverride
	}
	var sides [2]side
	var names []string
	for i, rev := range []*appsv1.ControllerRevision{a, b} {
		base, err := TemplateOf(set, rev)
		if err != nil {
			return nil, err
		}
		held, err := revision.Overrides(rev)
		if err != nil {
			return nil, err
		}
		sides[i] = side{base: base, overrides: map[string]v1alpha1.OrdinalOverride{}}
		for _, o := range held {
			sides[i].overrides[o.Name] = o
			if !slices.Contains(names, o.Name) {
				names = append(names, o.Name)
			}
		}
	}
	slices.Sort(names)
	out := make([]GroupDiff, 0, len(names))
	for _, name := range names {
		g := GroupDiff{Name: name}
		for i, s := range sides {
			o, held := s.overrides[name]
			t := *s.base
			words := "none"
			if held {
				t = planner.EffectiveTemplate(s.base, o.Template)
				words = ordinalWords(o.Ordinals)
			}
			text, err := yaml.Marshal(t)
			if err != nil {
				return nil, fmt.Errorf("encoding the template of override %s: %w", name, err)
			}
			if i == 0 {
				g.TextA, g.OrdinalsA = string(text), words
			} else {
				g.TextB, g.OrdinalsB = string(text), words
			}
		}
		out = append(out, g)
	}
	return out, nil
}

func ordinalWords(list []intstr.IntOrString) string {
	parts := make([]string, len(list))
	for i, v := range list {
		parts[i] = v.String()
	}
	return strings.Join(parts, ",")
}
