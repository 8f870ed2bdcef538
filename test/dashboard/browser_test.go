package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumNames are the names Debian and others give the browser.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome"}

// findChromium fails the test when no browser is installed: these tests
// never skip, since hack/test.sh installs Chromium first.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("Chromium is not installed (looked for %s in PATH, and $CHROMIUM): run hack/ensure-chromium.sh, which hack/test.sh runs first", strings.Join(chromiumNames, ", "))
	return ""
}

// browser opens a headless Chromium tab for one test, closed at its end.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.NoSandbox, // the tests may run as root, where the sandbox cannot start
		chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-gpu", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// run runs browser actions, bounded by a minute.
func run(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes it.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitPage waits until the expression is true in the page, polling it;
// what names the wait in the failure, with the page's last value of show.
func waitPage(t *testing.T, ctx context.Context, what, expr, show string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if eval[bool](t, ctx, expr) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting %s for the page to show %s; it shows %s", timeout, what, eval[json.RawMessage](t, ctx, show))
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not a check
	}
}

// cells is a JavaScript expression listing the grid's cells.
const cells = `[...document.querySelectorAll("#grid .cell")].map(c => ({ord: +c.dataset.ordinal, rev: c.dataset.revision, state: c.dataset.state}))`

func setURL(ns, name string) string {
	return fmt.Sprintf("%s#/set/statefulsets.apps/%s/%s", server.URL(), ns, name)
}
