package dashboard

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/setops"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A revision diff of an extended set with configRevisions shows which
// ConfigMap keys changed and their values, after the template's diff.
func TestARevisionDiffShowsWhichConfigChanged(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(3))
	copies := map[int64]*corev1.ConfigMap{}
	var revs []*appsv1.ControllerRevision
	for n, value := range map[int64]string{1: "workers 2", 2: "workers 4"} {
		cm, err := configrev.ConfigMapCopy(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: set.Namespace},
			Data: map[string]string{"app.conf": value, "same": "x"}}, set.Name)
		if err != nil {
			t.Fatal(err)
		}
		copies[n] = cm
		rev := testgen.RevisionOf(set, n)
		if err := configrev.Annotate(rev, []configrev.Record{{Kind: configrev.ConfigMap, Name: "app", Copy: cm.Name}}); err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	s := &Server{client: fake.NewClientset(copies[1], copies[2])}
	ext := &v1alpha1.StatefulSet{Spec: v1alpha1.StatefulSetSpec{ConfigRevisions: &v1alpha1.ConfigRevisions{}}}
	var text strings.Builder
	s.configDiff(context.Background(), observed{Observed: setops.Observed{Set: set, Extended: ext, Revisions: revs}}, 1, 2, &text)
	got := text.String()
	for _, want := range []string{"ConfigMap app: " + copies[1].Name + " -> " + copies[2].Name, "~ app.conf", "-workers 2", "+workers 4"} {
		if !strings.Contains(got, want) {
			t.Errorf("the diff does not show %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "same") {
		t.Errorf("an unchanged key is shown:\n%s", got)
	}

	text.Reset()
	s.configDiff(context.Background(), observed{Observed: setops.Observed{Set: set, Revisions: revs}}, 1, 2, &text)
	if text.Len() != 0 {
		t.Errorf("an apps/v1 set's diff shows config:\n%s", text.String())
	}
}
