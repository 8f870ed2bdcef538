package setops

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/revision"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func cpuOverrideOf(cpu string) v1alpha1.OrdinalOverride {
	return v1alpha1.OrdinalOverride{Name: "big", Ordinals: []intstr.IntOrString{intstr.FromInt32(0)}, Template: &v1alpha1.OverrideTemplate{
		Spec: &v1alpha1.OverridePodSpec{Containers: []v1alpha1.ContainerOverride{{Name: "app",
			Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}}
}

// A change of one override leaves the template alone and shows in its
// group's effective template.
func TestTemplateDiffShowsEachOverrideGroup(t *testing.T) {
	set := testgen.StatefulSet("web")
	var revs []*appsv1.ControllerRevision
	for i, list := range [][]v1alpha1.OrdinalOverride{nil, {cpuOverrideOf("200m")}, {cpuOverrideOf("300m")}} {
		rev, err := revision.NewWith(set, int64(i+1), nil, revision.Options{Overrides: list})
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	d, err := TemplateDiff(set, revs, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.TextA != d.TextB || d.Same() || len(d.Groups) != 1 {
		t.Fatalf("diff of revisions 2 and 3: template equal %v, same %v, %d groups; want equal templates and one group that differs", d.TextA == d.TextB, d.Same(), len(d.Groups))
	}
	g := d.Groups[0]
	if g.Name != "big" || g.OrdinalsA != "0" || !strings.Contains(g.TextA, "cpu: 200m") || !strings.Contains(g.TextB, "cpu: 300m") {
		t.Errorf("group %s (ordinals %s → %s):\n%s\n%s", g.Name, g.OrdinalsA, g.OrdinalsB, g.TextA, g.TextB)
	}
	d, err = TemplateDiff(set, revs, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Groups[0]; g.OrdinalsA != "none" || strings.Contains(g.TextA, "200m") || !strings.Contains(g.TextB, "200m") {
		t.Errorf("adding the override: group ordinals %s → %s", g.OrdinalsA, g.OrdinalsB)
	}
	if d, err := TemplateDiff(set, revs[:1], 1, 1); err != nil || len(d.Groups) != 0 || !d.Same() {
		t.Errorf("a revision without overrides has groups %v (%v)", d.Groups, err)
	}
}

// The rendered diff has the template's diff (none here) and the group's.
func TestRenderedDiffHasEachGroupsDiff(t *testing.T) {
	set := testgen.StatefulSet("web")
	var revs []*appsv1.ControllerRevision
	for i, list := range [][]v1alpha1.OrdinalOverride{{cpuOverrideOf("200m")}, {cpuOverrideOf("300m")}} {
		rev, err := revision.NewWith(set, int64(i+1), nil, revision.Options{Overrides: list})
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	d, err := TemplateDiff(set, revs, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	d.Render(&b)
	want := "--- revision 1 (" + revs[0].Name + ") override big (ordinals 0)\n+++ revision 2 (" + revs[1].Name + ") override big (ordinals 0)\n"
	if !strings.HasPrefix(b.String(), want) || !strings.Contains(b.String(), "-        cpu: 200m\n+        cpu: 300m\n") {
		t.Errorf("rendered diff:\n%s", b.String())
	}
}
