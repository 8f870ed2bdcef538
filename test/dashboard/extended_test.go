package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/chromedp/chromedp"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// extendedSets reaches the extended kind in ns.
func extendedSets(t *testing.T, ns string) ostsclient.Interface {
	t.Helper()
	c, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c.StatefulSets(ns)
}

// createExtended creates newSet's set as the extended kind, with a
// progress deadline of two seconds, changed by each of mutate.
func createExtended(t *testing.T, ns, name string, n int32, mutate ...func(*v1alpha1.StatefulSet)) {
	t.Helper()
	data, err := json.Marshal(newSet(ns, name, n, false))
	if err != nil {
		t.Fatal(err)
	}
	set := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, set); err != nil {
		t.Fatal(err)
	}
	set.Spec.ProgressDeadlineSeconds = ptr(int32(2))
	for _, m := range mutate {
		m(set)
	}
	if _, err := extendedSets(t, ns).Create(context.Background(), set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// waitExtended waits until cond holds for the extended set.
func waitExtended(t *testing.T, ns, name, what string, cond func(*v1alpha1.StatefulSet) bool) *v1alpha1.StatefulSet {
	t.Helper()
	var got *v1alpha1.StatefulSet
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := extendedSets(t, ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = s
		return cond(s), nil
	})
	if err != nil {
		t.Fatalf("waiting for the extended set %s to be %s: %v; status %+v", name, what, err, got.Status)
	}
	return got
}

func paused(s *v1alpha1.StatefulSet) bool {
	return s.Spec.UpdateStrategy.RollingUpdate != nil && s.Spec.UpdateStrategy.RollingUpdate.Paused
}

// TestAnExtendedSetIsListedAndActedOnFromItsPage: the list shows an
// extended set under its kind; its page shows the controller's conditions,
// pauses and resumes it through rollingUpdate.paused, names the pod a
// broken rollout is blocked by, rolls it back with Undo, and deletes a
// chosen pod; a set that reserves an ordinal shows it as a reserved cell.
func TestAnExtendedSetIsListedAndActedOnFromItsPage(t *testing.T) {
	ns := namespace(t)
	createExtended(t, ns, "db", 3)
	createExtended(t, ns, "cache", 2, func(s *v1alpha1.StatefulSet) {
		s.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1)}
	})
	first := waitExtended(t, ns, "db", "complete", func(s *v1alpha1.StatefulSet) bool {
		return s.Status.ObservedGeneration == s.Generation && s.Status.UpdatedReplicas == 3 && s.Status.ReadyReplicas == 3
	}).Status.UpdateRevision
	ctx := browser(t)
	run(t, ctx, chromedp.Navigate(server.URL()))
	row := fmt.Sprintf(`document.querySelector('#sets tr[data-set="%s/db"]')`, ns)
	waitPage(t, ctx, "the set listed under its kind", `!!`+row+`?.textContent.includes("statefulsets.apps.ordinal.dev")`,
		row+`?.textContent`, 30*time.Second)

	run(t, ctx, chromedp.Navigate(fmt.Sprintf("%s#/set/statefulsets.apps.ordinal.dev/%s/db", server.URL(), ns)))
	cond := func(typ string) string {
		return `[...document.querySelectorAll('#conditions tr[data-type="` + typ + `"] td')].map(td => td.textContent).join(" ")`
	}
	waitPage(t, ctx, "the Available and Progressing conditions",
		cond("Available")+`.startsWith("Available True") && `+cond("Progressing")+`.startsWith("Progressing True RolloutComplete")`,
		`document.querySelector("#extended")?.textContent`, 30*time.Second)

	run(t, ctx, chromedp.Click(chromedp.CSS("#pause")))
	if text := eval[string](t, ctx, `document.querySelector("#confirm-text").textContent`); !strings.HasPrefix(text, "spec.updateStrategy.rollingUpdate.paused is set") {
		t.Errorf("the pause dialog says %q", text)
	}
	run(t, ctx, chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitExtended(t, ns, "db", "paused by the page", paused)
	waitPage(t, ctx, "the paused badge and Resume", `document.querySelector("#health")?.textContent === "paused" && !!document.querySelector("#resume")`,
		`document.querySelector(".summary")?.textContent`, 30*time.Second)
	run(t, ctx, chromedp.Click(chromedp.CSS("#resume")), chromedp.Click(chromedp.CSS("#confirm-ok")))
	waitExtended(t, ns, "db", "resumed by the page", func(s *v1alpha1.StatefulSet) bool { return !paused(s) })

	broken := `{"spec":{"template":{"metadata":{"annotations":{"sim.ordinal.dev/behavior":"image-pull-error"}}}}}`
	if _, err := extendedSets(t, ns).Patch(context.Background(), "db", types.MergePatchType, []byte(broken), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPage(t, ctx, "db-2 blocking the failed rollout",
		`!!document.querySelector('#blocked li[data-pod="db-2"]') && `+cond("Progressing")+`.startsWith("Progressing False ProgressDeadlineExceeded")`,
		`document.querySelector("#extended")?.textContent`, 30*time.Second)
	waitPage(t, ctx, "the failing badge", `document.querySelector("#health")?.textContent === "failing"`,
		`document.querySelector(".summary")?.textContent`, 30*time.Second)

	// Undo offers the previous revision; once the template is back,
	// self-healing replaces db-2 and the rollout completes.
	run(t, ctx, chromedp.Click(chromedp.CSS("#undo")), chromedp.Click(chromedp.CSS("#confirm-ok")))
	back := waitExtended(t, ns, "db", "rolled back and complete", func(s *v1alpha1.StatefulSet) bool {
		_, broken := s.Spec.Template.Annotations["sim.ordinal.dev/behavior"]
		return !broken && s.Status.ObservedGeneration == s.Generation && s.Status.UpdateRevision == first &&
			s.Status.UpdatedReplicas == 3 && s.Status.ReadyReplicas == 3
	})
	if back.Status.CurrentRevision != first {
		t.Errorf("after undo: current revision %s, want %s", back.Status.CurrentRevision, first)
	}
	waitPage(t, ctx, "the complete badge", `document.querySelector("#health")?.textContent === "complete"`,
		`document.querySelector(".summary")?.textContent`, 30*time.Second)
	comparePlanOf(t, ctx, ns, "osts/db")

	start := time.Now()
	deletePodFromPage(t, ctx, ns, "db", 1, 3)
	showsReservedCell(t, ctx, ns, "cache", 1, 2, 2)
	t.Logf("deleting a pod and the reserved cell took %s in the browser", time.Since(start).Round(10*time.Millisecond))
}
