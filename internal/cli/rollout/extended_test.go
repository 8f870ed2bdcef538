package rollout_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/ostsclient"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// extended is the tests' client of the extended kind.
func extended(t *testing.T) *ostsclient.Client {
	t.Helper()
	c, err := ostsclient.NewForConfig(planetest.Plane().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type extOption func(*v1alpha1.StatefulSet)

// createExtendedWeb creates createWeb's set as the extended kind (the same
// manifest under the other apiVersion) and waits until its rollout is
// complete.
func createExtendedWeb(t *testing.T, ns string, opts ...extOption) {
	t.Helper()
	data, err := json.Marshal(webSet(ns))
	if err != nil {
		t.Fatal(err)
	}
	set := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, set); err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		o(set)
	}
	if _, err := extended(t).StatefulSets(ns).Create(context.Background(), set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitExtendedComplete(t, ns)
}

// waitExtendedComplete waits until every pod of the extended web runs the
// update revision and is Ready.
func waitExtendedComplete(t *testing.T, ns string) *v1alpha1.StatefulSet {
	t.Helper()
	var set *v1alpha1.StatefulSet
	waitFor(t, "the extended set web to complete", func(ctx context.Context) (bool, error) {
		s, err := extended(t).StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		set = s
		st := s.Status
		return st.ObservedGeneration == s.Generation && st.ReadyReplicas == *s.Spec.Replicas &&
			st.UpdatedReplicas == *s.Spec.Replicas && st.CurrentRevision == st.UpdateRevision, nil
	})
	return set
}

func getExtended(t *testing.T, ns string) *v1alpha1.StatefulSet {
	t.Helper()
	s, err := extended(t).StatefulSets(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func patchExtended(t *testing.T, ns, patch string) {
	t.Helper()
	if _, err := extended(t).StatefulSets(ns).Patch(context.Background(), "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// setExtendedImage changes the template's image and records a
// change-cause; a merge patch replaces the container list.
func setExtendedImage(t *testing.T, ns, image string) {
	t.Helper()
	patchExtended(t, ns, fmt.Sprintf(`{"metadata":{"annotations":{"kubernetes.io/change-cause":"image %s"}},"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":%q}]}}}}`, image, image))
}

// TestEveryVerbWorksOnAnExtendedSet walks an extended set through the
// verbs: status by its bare name, pause (the kind's own field), a template
// change that does not roll while paused, resume, history, diff, undo (a
// JSON patch) and restart.
func TestEveryVerbWorksOnAnExtendedSet(t *testing.T) {
	ns := namespace(t)
	createExtendedWeb(t, ns)
	first := getExtended(t, ns).Status.UpdateRevision

	st := ordinal(t, ns, "rollout", "status", "web", "--timeout", "30s").mustSucceed(t)
	mustContain(t, "status by bare name", st.out, "statefulset.apps.ordinal.dev/web: OrderedReady, RollingUpdate, revision "+first,
		"conditions:", "Available       True", "Progressing     True   RolloutComplete")
	if got := lastLine(st.out); got != "roll out complete: 3 new pods have been updated..." {
		t.Errorf("status verdict %q", got)
	}

	p := ordinal(t, ns, "rollout", "pause", "osts/web").mustSucceed(t)
	if want := "statefulset.apps.ordinal.dev/web paused (spec.updateStrategy.rollingUpdate.paused): no pod is updated until resume; scaling still works\n"; p.out != want {
		t.Errorf("pause printed %q, want %q", p.out, want)
	}
	if ru := getExtended(t, ns).Spec.UpdateStrategy.RollingUpdate; ru == nil || !ru.Paused {
		t.Fatalf("rollingUpdate after pause: %+v", ru)
	}
	setExtendedImage(t, ns, imageNew)
	paused := ordinal(t, ns, "rollout", "status", "statefulsets.apps.ordinal.dev/web", "--timeout", "30s").mustSucceed(t)
	mustContain(t, "status while paused", paused.out, "paused: no pod is updated until `ordinal rollout resume osts/web`", "RolloutPaused")
	if got := lastLine(paused.out); got != "roll out paused: 0 out of 3 new pods have been updated..." {
		t.Errorf("status verdict while paused %q", got)
	}
	plan := ordinal(t, ns, "rollout", "plan", "osts/web").mustSucceed(t)
	mustContain(t, "plan while paused", plan.out, "Next actions: none.", "Rollout safety:", "paused:            yes",
		"self-healing:      Enabled, idle while the rollout is paused.", "progress deadline: 600s, not running while the rollout is paused.")
	for _, pod := range []string{"web-0", "web-1", "web-2"} {
		if img := getPod(t, ns, pod).Spec.Containers[0].Image; img != imageOld {
			t.Errorf("%s runs %s while paused", pod, img)
		}
	}

	r := ordinal(t, ns, "rollout", "resume", "osts/web").mustSucceed(t)
	if want := "statefulset.apps.ordinal.dev/web resumed (spec.updateStrategy.rollingUpdate.paused cleared)\n"; r.out != want {
		t.Errorf("resume printed %q, want %q", r.out, want)
	}
	second := waitExtendedComplete(t, ns).Status.UpdateRevision

	h := ordinal(t, ns, "rollout", "history", "osts/web").mustSucceed(t)
	mustContain(t, "history", h.out, "statefulset.apps.ordinal.dev/web\n", "image "+imageNew)
	if rows := historyRows(h.out); len(rows) != 2 || rows[0][0] != "1" || rows[1] != [2]string{"2", "image " + imageNew} {
		t.Errorf("history rows %v", rows)
	}
	d := ordinal(t, ns, "rollout", "diff", "osts/web", "1", "2").mustSucceed(t)
	mustContain(t, "diff", d.out, "--- revision 1 ("+first+")", "+++ revision 2 ("+second+")", "-  - image: "+imageOld, "+  - image: "+imageNew)

	u := ordinal(t, ns, "rollout", "undo", "osts/web").mustSucceed(t)
	if u.out != "statefulset.apps.ordinal.dev/web rolled back\n" {
		t.Errorf("undo printed %q", u.out)
	}
	back := waitExtendedComplete(t, ns)
	if back.Status.UpdateRevision != first || back.Spec.Template.Spec.Containers[0].Image != imageOld {
		t.Errorf("after undo: update revision %s (want %s), image %s", back.Status.UpdateRevision, first, back.Spec.Template.Spec.Containers[0].Image)
	}
	skip := ordinal(t, ns, "rollout", "undo", "osts/web", "--to-revision", "3").mustSucceed(t)
	if want := "statefulset.apps.ordinal.dev/web skipped rollback (current template already matches revision 3)\n"; skip.out != want {
		t.Errorf("undo to the current revision printed %q, want %q", skip.out, want)
	}

	rs := ordinal(t, ns, "rollout", "restart", "osts/web").mustSucceed(t)
	if rs.out != "statefulset.apps.ordinal.dev/web restarted\n" {
		t.Errorf("restart printed %q", rs.out)
	}
	restarted := waitExtendedComplete(t, ns)
	if restarted.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" || restarted.Status.UpdateRevision == first {
		t.Errorf("after restart: template annotations %v, update revision %s", restarted.Spec.Template.Annotations, restarted.Status.UpdateRevision)
	}
	if got := getPod(t, ns, "web-0").Labels["controller-revision-hash"]; got != restarted.Status.UpdateRevision {
		t.Errorf("web-0 at %s after restart, want %s", got, restarted.Status.UpdateRevision)
	}

	nf := ordinal(t, ns, "rollout", "status", "sts/web")
	if nf.code != 3 || nf.err != "ordinal: statefulsets.apps \"web\" not found\n" {
		t.Errorf("sts/web names apps/v1 only: exit %d, stderr %q", nf.code, nf.err)
	}
}

// TestStatusFailsWhenTheControllerDeclaresTheRolloutFailed: a template
// whose image cannot be pulled makes no progress; past the progress
// deadline (2s here) the controller says so in the Progressing condition
// and status exits 6 even without --fail-fast, while plan names the
// blocked pod and the passed deadline.
func TestStatusFailsWhenTheControllerDeclaresTheRolloutFailed(t *testing.T) {
	ns := namespace(t)
	createExtendedWeb(t, ns, func(s *v1alpha1.StatefulSet) { s.Spec.ProgressDeadlineSeconds = ptr.To[int32](2) })
	patchExtended(t, ns, fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:"image-pull-error"}}}}}`, behaviorKey))
	st := ordinal(t, ns, "rollout", "status", "osts/web", "--fail-fast=false", "--timeout", "60s")
	if st.code != 6 {
		t.Fatalf("status exited %d, want 6", st.code)
	}
	mustContain(t, "status error", st.err, "ordinal: rollout failed (ProgressDeadlineExceeded): no progress for ",
		"run `ordinal rollout plan osts/web` for what to do")
	plan := ordinal(t, ns, "rollout", "plan", "osts/web").mustSucceed(t)
	mustContain(t, "plan of the failed rollout", plan.out, "blocked by:        web-2 (revision ", "progress deadline: 2s, passed ",
		"on failure:        Report:", "Progressing     False  ProgressDeadlineExceeded")
}
