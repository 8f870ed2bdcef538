package setops

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/internal/revision"
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

// Diff is the templates of two revisions of a set, with their labels.
type Diff struct {
	LabelA, LabelB string
	TextA, TextB   string
}

// Same says whether the two templates are equal.
func (d Diff) Same() bool { return d.TextA == d.TextB }

// TemplateDiff reads the templates of revisions a and b of the set; the
// caller renders them with rolloutview.Diff.
func TemplateDiff(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, a, b int64) (Diff, error) {
	var d Diff
	var err error
	if d.TextA, d.LabelA, err = TemplateText(set, revs, a); err != nil {
		return Diff{}, err
	}
	if d.TextB, d.LabelB, err = TemplateText(set, revs, b); err != nil {
		return Diff{}, err
	}
	return d, nil
}
