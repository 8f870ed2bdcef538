package rollout_test

import (
	"strings"
	"testing"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// TestPauseAndResume pauses a steady set, changes its template, checks
// that nothing rolls, then resumes and checks that everything does.
func TestPauseAndResume(t *testing.T) {
	ns := namespace(t)
	createWeb(t, ns)

	p := ordinal(t, ns, "rollout", "pause", "web").mustSucceed(t)
	if want := "statefulset.apps/web paused at partition 3 (every ordinal held); resume restores partition 0\n"; p.out != want {
		t.Errorf("pause printed %q, want %q", p.out, want)
	}
	again := ordinal(t, ns, "rollout", "pause", "web").mustSucceed(t)
	mustContain(t, "second pause", again.out, "already paused at partition 3", "resume restores partition 0")
	if got := getSet(t, ns).Annotations[v1alpha1.PausedAnnotation]; got != "0" {
		t.Errorf("saved partition %q after pausing twice, want the original 0", got)
	}

	setImage(t, ns, imageNew)
	st := ordinal(t, ns, "rollout", "status", "web", "--timeout", "30s").mustSucceed(t)
	mustContain(t, "status while paused", st.out, "(paused; resume restores partition 0)", "partitioned roll out complete: 0 new pods have been updated...")
	plan := ordinal(t, ns, "rollout", "plan", "web").mustSucceed(t)
	mustContain(t, "plan while paused", plan.out, "partition 3 (paused by ordinal rollout pause; resume restores 0)", "Next actions: none.")
	for _, pod := range []string{"web-0", "web-1", "web-2"} {
		if img := getPod(t, ns, pod).Spec.Containers[0].Image; img != imageOld {
			t.Errorf("%s runs %s while paused", pod, img)
		}
	}

	r := ordinal(t, ns, "rollout", "resume", "web").mustSucceed(t)
	if want := "statefulset.apps/web resumed; partition restored to 0\n"; r.out != want {
		t.Errorf("resume printed %q, want %q", r.out, want)
	}
	set := waitComplete(t, ns)
	if _, ok := set.Annotations[v1alpha1.PausedAnnotation]; ok || *set.Spec.UpdateStrategy.RollingUpdate.Partition != 0 {
		t.Errorf("after resume: annotations %v, partition %d", set.Annotations, *set.Spec.UpdateStrategy.RollingUpdate.Partition)
	}
	r = ordinal(t, ns, "rollout", "resume", "web").mustSucceed(t)
	if want := "statefulset.apps/web is not paused; nothing to resume\n"; r.out != want {
		t.Errorf("second resume printed %q, want %q", r.out, want)
	}
}

func TestPauseRefusesOnDelete(t *testing.T) {
	ns := namespace(t)
	before := createWeb(t, ns, onDelete)
	r := ordinal(t, ns, "rollout", "pause", "web")
	if r.code != 1 || !strings.HasPrefix(r.err, "ordinal: cannot pause statefulset.apps/web: its update strategy is OnDelete") {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
	if after := getSet(t, ns); after.Generation != before.Generation {
		t.Errorf("the set changed")
	}
}
