package dashboard

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/setops"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestUndoGoesToTheChosenRevisionAndRestartStampsTheTemplate(t *testing.T) {
	ts := startTestServer(t, nil)
	ctx := context.Background()
	// A second revision with a new image, the set's template at it.
	set, err := ts.api.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newer := testgen.RevisionOf(testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("registry.example/app:2")), 2)
	if _, err := ts.api.AppsV1().ControllerRevisions("default").Create(ctx, newer, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	set.Spec.Template.Spec.Containers[0].Image = "registry.example/app:2"
	if _, err := ts.api.AppsV1().StatefulSets("default").Update(ctx, set, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	post := func(action, body string) response {
		return ts.do(t, request{method: "POST", path: "/api/sets/statefulsets.apps/default/web/" + action, cookie: ts.session, header: ts.sameOrigin(nil), body: body})
	}
	image := func() string {
		s, err := ts.api.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s.Spec.Template.Spec.Containers[0].Image
	}
	tests := []struct {
		name, action, body string
		code               int
		message            string
	}{
		{"a revision that does not exist is not found", "undo", `{"revision":7}`, http.StatusNotFound, "unable to find specified revision 7 in history"},
		{"a negative revision is a bad request", "undo", `{"revision":-1}`, http.StatusBadRequest, "unable to find specified revision -1"},
		{"an unknown field is a bad request", "undo", `{"rev":1}`, http.StatusBadRequest, "unknown field"},
		{"an unknown action is not found", "scale", `{}`, http.StatusNotFound, "(pause, resume, undo, restart) not found"},
		{"undo to revision 1 rolls back", "undo", `{"revision":1}`, http.StatusOK, "statefulset.apps/web rolled back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := post(tt.action, tt.body)
			if got.code != tt.code || !strings.Contains(got.body, tt.message) {
				t.Errorf("status %d, body %q; want %d with %q", got.code, got.body, tt.code, tt.message)
			}
		})
	}
	if img := image(); img != testgen.StatefulSet("web").Spec.Template.Spec.Containers[0].Image {
		t.Errorf("after undo to revision 1 the template runs %s", img)
	}
	t.Run("restart stamps the template with the time", func(t *testing.T) {
		if got := post("restart", ""); got.code != http.StatusOK || !strings.Contains(got.body, "statefulset.apps/web restarted") {
			t.Fatalf("status %d, body %q", got.code, got.body)
		}
		s, err := ts.api.AppsV1().StatefulSets("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Spec.Template.Annotations[setops.RestartedAtAnnotation] == "" {
			t.Errorf("the template has no %s annotation: %v", setops.RestartedAtAnnotation, s.Spec.Template.Annotations)
		}
	})
}
