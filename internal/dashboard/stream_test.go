package dashboard

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func TestAnOpenPageIsPushedTheStateThenEachChange(t *testing.T) {
	ts := startTestServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", ts.base+"/api/watch/sets/statefulsets.apps/default/web", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: ts.guard.cookie, Value: ts.session})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	events := bufio.NewScanner(resp.Body)
	events.Buffer(nil, 1<<20)
	next := func(want string) {
		t.Helper()
		for events.Scan() {
			line := events.Text()
			if strings.HasPrefix(line, "data: ") && strings.Contains(line, want) {
				return
			}
		}
		t.Fatalf("the stream ended (%v) before a state with %s", events.Err(), want)
	}
	next(`"health":"complete"`)
	patch := `{"metadata":{"annotations":{"` + v1alpha1.PausedAnnotation + `":"0"}}}`
	if _, err := ts.api.AppsV1().StatefulSets("default").Patch(ctx, "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	next(`"health":"paused"`)
}
