package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestARequestWithoutTheTokenIsRefused opens the dashboard without its
// token, in the browser and with a plain client.
func TestARequestWithoutTheTokenIsRefused(t *testing.T) {
	base, _, _ := strings.Cut(server.URL(), "?")
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(base))
	if body := eval[string](t, ctx, "document.body.innerText"); !strings.Contains(body, "needs its token") {
		t.Errorf("the page without the token shows %q", body)
	}
	if grid := eval[bool](t, ctx, `!!document.querySelector("#main")`); grid {
		t.Error("the dashboard rendered without the token")
	}
	c := &http.Client{Timeout: 10 * time.Second}
	for _, path := range []string{"", "api/sets", "api/watch/sets", "static/app.js"} {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET /%s without the token: %d, want 401", path, resp.StatusCode)
		}
	}
	resp, err := c.Post(base+"api/sets/statefulsets.apps/default/web/pause", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST pause without the token: %d, want 401", resp.StatusCode)
	}
}
