package dashboard_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// podUIDs are the UIDs of the set's pods at ordinals 0 to n-1, "" for one
// that does not exist.
func podUIDs(t *testing.T, ns, set string, n int32) []types.UID {
	t.Helper()
	out := make([]types.UID, n)
	for i := range n {
		pod, err := client.CoreV1().Pods(ns).Get(context.Background(), planner.PodName(set, i), metav1.GetOptions{})
		if err == nil && pod.DeletionTimestamp == nil && planner.IsRunningAndReady(pod) {
			out[i] = pod.UID
		}
	}
	return out
}

// deletePodFromPage opens the extended set's page, deletes the pod at
// ordinal from its cell and waits until the API shows it replaced by a
// ready pod with a new UID, every other pod of the set's n untouched.
func deletePodFromPage(t *testing.T, ctx context.Context, ns, set string, ordinal, n int32) {
	t.Helper()
	before := podUIDs(t, ns, set, n)
	if before[ordinal] == "" {
		t.Fatalf("%s is not a ready pod before the delete: UIDs %v", planner.PodName(set, ordinal), before)
	}
	cell := fmt.Sprintf(`#grid .cell[data-ordinal="%d"]`, ordinal)
	waitPage(t, ctx, "a deletable cell", `!!document.querySelector('`+cell+`.deletable')`, cells, 30*time.Second)
	run(t, ctx, chromedp.Click(chromedp.CSS(cell)))
	if text := eval[string](t, ctx, `document.querySelector("#confirm-text").textContent`); !strings.Contains(text, "within rollingUpdate.maxUnavailable") {
		t.Errorf("the delete dialog says %q", text)
	}
	run(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	var after []types.UID
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		after = podUIDs(t, ns, set, n)
		return after[ordinal] != "" && after[ordinal] != before[ordinal], nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to be replaced: %v; UIDs before %v, now %v", planner.PodName(set, ordinal), err, before, after)
	}
	for i := range n {
		if i != ordinal && after[i] != before[i] {
			t.Errorf("%s was replaced too: UID %s, then %s", planner.PodName(set, i), before[i], after[i])
		}
	}
	waitPage(t, ctx, "the confirmation", `document.querySelector("#toast").textContent.includes("delete-requested=true")`,
		`document.querySelector("#toast").textContent`, 10*time.Second)
}

// showsReservedCell opens the extended set's page and waits for ordinal
// to be a reserved cell while the set's pod at next is Ready, and the set
// of n pods complete.
func showsReservedCell(t *testing.T, ctx context.Context, ns, set string, ordinal, next, n int32) {
	t.Helper()
	run(t, ctx, chromedp.Navigate(fmt.Sprintf("%s#/set/statefulsets.apps.ordinal.dev/%s/%s", server.URL(), ns, set)))
	waitPage(t, ctx, "a reserved cell and the pod after it",
		fmt.Sprintf(`%s.some(c => c.ord === %d && c.state === "reserved") && %s.some(c => c.ord === %d && c.state === "Ready")`, cells, ordinal, cells, next),
		cells, 30*time.Second)
	waitPage(t, ctx, "the set complete with its reserved ordinal", `document.querySelector("#health")?.textContent === "complete" && document.querySelector("#counts")?.textContent.startsWith("`+fmt.Sprintf("%d/%d updated", n, n)+`")`,
		`document.querySelector(".summary")?.textContent`, 30*time.Second)
}
