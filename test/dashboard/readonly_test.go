package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/dashboard"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// TestAReadOnlyDashboardOfTheAdminCannotWrite starts a read-only dashboard
// as `ordinal up --dashboard-read-only` does, over the admin's
// credentials, and writes with the dashboard's own client configuration,
// past its handlers: its client refuses, and without that client-side
// refusal the API server refuses, since the dashboard acts as a user who
// may only read.
func TestAReadOnlyDashboardOfTheAdminCannotWrite(t *testing.T) {
	ns := namespace(t)
	create(t, newSet(ns, "web", 1, false))
	createExtended(t, ns, "db", 1)
	waitComplete(t, ns, "web", 2*time.Minute)
	pod, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := dashboard.NewConfig()
	cfg.ReadOnly = true
	s, err := dashboard.StartAsAdmin(ctx, cfg, planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	t.Run("the pages read what they show", func(t *testing.T) {
		body := bearerGet(t, s, "/api/sets")
		for _, want := range []string{`"namespace":"` + ns + `","name":"web"`, `"namespace":"` + ns + `","name":"db"`} {
			if !strings.Contains(body, want) {
				t.Errorf("GET /api/sets lacks %s:\n%s", want, body)
			}
		}
	})

	t.Run("its handlers refuse an action", func(t *testing.T) {
		code, body := bearerDo(t, s, http.MethodPost, "/api/sets/statefulsets.apps/"+ns+"/web/pause")
		if code != http.StatusForbidden || !strings.Contains(body, "read-only") {
			t.Errorf("POST pause: %d %s, want 403 saying read-only", code, body)
		}
	})

	pause := []byte(`{"metadata":{"annotations":{"` + v1alpha1.PausedAnnotation + `":"0"}}}`)
	writes := func(t *testing.T, rc *rest.Config) map[string]error {
		t.Helper()
		c, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		ext, err := ostsclient.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		_, patchSet := c.AppsV1().StatefulSets(ns).Patch(ctx, "web", types.MergePatchType, pause, metav1.PatchOptions{})
		ext0, err := ext.StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the extended set with the dashboard's credentials: %v", err)
		}
		ext0.Labels = map[string]string{"written-by": "read-only-dashboard"}
		_, updateExt := ext.StatefulSets(ns).Update(ctx, ext0, metav1.UpdateOptions{})
		return map[string]error{
			"patching a statefulset":           patchSet,
			"updating an extended statefulset": updateExt,
			"deleting a pod":                   c.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{}),
		}
	}
	t.Run("its client refuses every write", func(t *testing.T) {
		for what, err := range writes(t, s.RESTConfig()) {
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("%s with the dashboard's client: %v, want Forbidden saying read-only", what, err)
			}
		}
	})
	t.Run("the API server refuses every write of its user", func(t *testing.T) {
		rc := s.RESTConfig()
		rc.WrapTransport = nil // without the client's own refusal
		for what, err := range writes(t, rc) {
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "`+dashboard.ReadOnlyUser+`" cannot`) {
				t.Errorf("%s with the dashboard's credentials: %v, want Forbidden for %s from the API server", what, err, dashboard.ReadOnlyUser)
			}
		}
		c, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("listing secrets with the dashboard's credentials: %v, want Forbidden (the pages show none)", err)
		}
	})
	set, err := client.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set.Annotations[v1alpha1.PausedAnnotation]; ok {
		t.Error("a write of the read-only dashboard paused the set")
	}
	after, err := client.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{})
	if err != nil || after.UID != pod.UID || after.DeletionTimestamp != nil {
		t.Errorf("a delete of the read-only dashboard reached web-0: %v", err)
	}
	db, err := extendedSets(t, ns).Get(ctx, "db", metav1.GetOptions{})
	if err != nil || db.Labels["written-by"] != "" {
		t.Errorf("an update of the read-only dashboard reached osts/db: labels %v, %v", db.GetLabels(), err)
	}
}

// bearerGet fetches path from s with its token as a bearer header.
func bearerGet(t *testing.T, s *dashboard.Server, path string) string {
	t.Helper()
	code, body := bearerDo(t, s, http.MethodGet, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return body
}

// bearerDo sends a request without a body to s with its token as a bearer
// header, as a script would, and returns the status and body.
func bearerDo(t *testing.T, s *dashboard.Server, method, path string) (int, string) {
	t.Helper()
	base, token, _ := strings.Cut(s.URL(), "/?token=")
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b.String()
}
