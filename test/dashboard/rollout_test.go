package dashboard_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/cli/root"
)

var screenshots = flag.Bool("update-screenshots", false, "save the pages' screenshots into docs/")

// TestARolloutIsWatchedAndPausedFromThePage follows a rollout in the
// browser: cells change revision as pods are replaced, Pause on the page
// pauses the set in the API, Resume lets it finish, the page explains the
// plan in the words of `ordinal rollout plan` and diffs the revisions.
func TestARolloutIsWatchedAndPausedFromThePage(t *testing.T) {
	ns := namespace(t)
	create(t, newSet(ns, "web", 5, true))
	before := waitComplete(t, ns, "web", 2*time.Minute)
	oldRev := before.Status.UpdateRevision
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(setURL(ns, "web")))
	waitPage(t, ctx, "five Ready cells at the old revision",
		`(() => { const c = `+cells+`; return c.length === 5 && c.every(x => x.state === "Ready" && x.rev === "`+oldRev+`") })()`, cells, 30*time.Second)
	if href := eval[string](t, ctx, "location.href"); strings.Contains(href, "token=") {
		t.Errorf("the token stayed in the address bar: %s", href)
	}

	// New pods take two seconds to turn Ready, so the rollout is still
	// going when the page pauses it.
	patch(t, ns, "web", `{"spec":{"template":{"metadata":{"annotations":{"sim.ordinal.dev/ready-delay":"2s"}},"spec":{"containers":[{"name":"nginx","image":"`+imageNew+`"}]}}}}`)
	waitPage(t, ctx, "a cell at the new revision",
		`(`+cells+`).some(x => x.rev && x.rev !== "`+oldRev+`")`, cells, 30*time.Second)
	run(t, ctx, chromedp.Click(chromedp.CSS("#pause")), chromedp.Click(chromedp.CSS("#confirm-ok")))
	set := waitSet(t, ns, "web", "paused by the page", func(s *appsv1.StatefulSet) bool {
		_, ok := s.Annotations[v1alpha1.PausedAnnotation]
		return ok
	})
	if p := partition(set); p < 1 || p > 5 {
		t.Errorf("paused at partition %d, want one above an old pod (1-5)", p)
	}
	waitPage(t, ctx, "the paused badge and Resume", `document.querySelector("#health")?.textContent === "paused" && !!document.querySelector("#resume")`,
		`document.querySelector(".summary")?.textContent`, 30*time.Second)
	saveScreenshots(t, ctx, ns)

	run(t, ctx, chromedp.Click(chromedp.CSS("#resume")), chromedp.Click(chromedp.CSS("#confirm-ok")))
	after := waitComplete(t, ns, "web", 2*time.Minute)
	if _, ok := after.Annotations[v1alpha1.PausedAnnotation]; ok || partition(after) != 0 {
		t.Errorf("after Resume: annotation kept %v, partition %d; want removed and 0", ok, partition(after))
	}
	waitPage(t, ctx, "every cell Ready at the new revision",
		`(`+cells+`).every(x => x.state === "Ready" && x.rev === "`+after.Status.UpdateRevision+`")`, cells, 30*time.Second)
	waitPage(t, ctx, "the complete badge", `document.querySelector("#health")?.textContent === "complete"`, `document.querySelector(".summary")?.textContent`, 30*time.Second)
	comparePlan(t, ctx, ns)

	// The history picks the last two revisions; their diff is the image.
	run(t, ctx, chromedp.Click(chromedp.CSS("#diff-button")))
	waitPage(t, ctx, "the diff of revisions 1 and 2",
		`(t => t.includes(`+strconv.Quote("-  - image: "+imageOld)+`) && t.includes(`+strconv.Quote("+  - image: "+imageNew)+`))(document.querySelector("#diff").textContent)`,
		`document.querySelector("#diff").textContent`, 30*time.Second)
}

// comparePlan checks that the page's explanation is `ordinal rollout
// plan`'s output, word for word, for a set at rest (no ages in it).
func comparePlan(t *testing.T, ctx context.Context, ns string) {
	t.Helper()
	comparePlanOf(t, ctx, ns, "web")
}

// comparePlanOf is comparePlan for the set arg names on the command line.
func comparePlanOf(t *testing.T, ctx context.Context, ns, arg string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := root.Main([]string{"rollout", "plan", arg, "-n", ns, "--kubeconfig", kubeconfig}, &out, &errOut); code != 0 {
		t.Fatalf("ordinal rollout plan: exit %d: %s", code, errOut.String())
	}
	waitPage(t, ctx, "the plan of `ordinal rollout plan`", `document.querySelector("#plan").textContent === `+strconv.Quote(out.String()),
		`document.querySelector("#plan").textContent`, 30*time.Second)
}

func partition(s *appsv1.StatefulSet) int32 {
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return *ru.Partition
	}
	return 0
}

// saveScreenshots writes the set's page and the list into docs/ when
// -update-screenshots is given.
func saveScreenshots(t *testing.T, ctx context.Context, ns string) {
	t.Helper()
	if !*screenshots {
		return
	}
	shoot := func(name string) {
		eval[bool](t, ctx, `(document.getElementById("toast").className = "") === ""`) // no passing message in the picture
		run(t, ctx, chromedp.Sleep(300*time.Millisecond))                              // let the last update paint
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "..", "docs", name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	}
	shoot("dashboard-set.png")
	run(t, ctx, chromedp.Navigate(server.URL()))
	waitPage(t, ctx, "the list with the set", `!!document.querySelector('#sets tr[data-set="`+ns+`/web"]')`, `document.querySelector("#sets")?.textContent`, 30*time.Second)
	shoot("dashboard-list.png")
	run(t, ctx, chromedp.Navigate(setURL(ns, "web")))
	waitPage(t, ctx, "the set's page again", `!!document.querySelector("#resume")`, `document.querySelector(".summary")?.textContent`, 30*time.Second)
}
