package rollout_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ordinal-sh/ordinal/internal/rolloutview"
)

// historyRows extracts (REVISION, CHANGE-CAUSE) pairs from a history
// table: kubectl prints only those two columns, ordinal prints them first
// and separates later columns by two or more spaces.
func historyRows(out string) [][2]string {
	var rows [][2]string
	split := regexp.MustCompile(`\s{2,}`)
	for _, line := range strings.Split(out, "\n") {
		cols := split.Split(strings.TrimSpace(line), -1)
		if len(cols) >= 2 && regexp.MustCompile(`^\d+$`).MatchString(cols[0]) {
			rows = append(rows, [2]string{cols[0], cols[1]})
		}
	}
	return rows
}

// TestHistoryUndoAndStatusMatchKubectl drives kubectl and ordinal over the
// same set and compares what a user reads.
func TestHistoryUndoAndStatusMatchKubectl(t *testing.T) {
	ns := namespace(t)
	createWeb(t, ns)
	setImage(t, ns, imageNew)
	waitComplete(t, ns)

	t.Run("history lists the same revisions and change-causes", func(t *testing.T) {
		k := kubectl(t, ns, "rollout", "history", "statefulset/web").mustSucceed(t)
		o := ordinal(t, ns, "rollout", "history", "web").mustSucceed(t)
		want := [][2]string{{"1", "<none>"}, {"2", "image " + imageNew}}
		if diff := cmp.Diff(want, historyRows(k.out)); diff != "" {
			t.Errorf("kubectl history (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(historyRows(k.out), historyRows(o.out)); diff != "" {
			t.Errorf("ordinal history differs from kubectl's (-kubectl +ordinal):\n%s", diff)
		}
		mustContain(t, "ordinal history", o.out, "0-2  ", "current,update")
	})
	t.Run("history -o json lists each revision with its ordinals", func(t *testing.T) {
		o := ordinal(t, ns, "rollout", "history", "web", "-o", "json").mustSucceed(t)
		var entries []rolloutview.Entry
		if err := json.Unmarshal([]byte(o.out), &entries); err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2 || len(entries[1].Ordinals) != 3 || !entries[1].Update || len(entries[0].Ordinals) != 0 {
			t.Errorf("entries = %+v", entries)
		}
	})
	t.Run("history --revision shows that revision's template", func(t *testing.T) {
		k := kubectl(t, ns, "rollout", "history", "statefulset/web", "--revision", "1").mustSucceed(t)
		o := ordinal(t, ns, "rollout", "history", "web", "--revision", "1").mustSucceed(t)
		mustContain(t, "kubectl history --revision", k.out, imageOld)
		mustContain(t, "ordinal history --revision", o.out, "statefulset.apps/web with revision #1", "image: "+imageOld)
	})
	t.Run("diff shows the image change", func(t *testing.T) {
		o := ordinal(t, ns, "rollout", "diff", "web", "1", "2").mustSucceed(t)
		mustContain(t, "diff", o.out, "--- revision 1 (web-", "+++ revision 2 (web-", "-  - image: "+imageOld, "+  - image: "+imageNew)
	})
	t.Run("status gives kubectl's verdict and exits 0", func(t *testing.T) {
		k := kubectl(t, ns, "rollout", "status", "statefulset/web", "--timeout", "30s").mustSucceed(t)
		o := ordinal(t, ns, "rollout", "status", "web", "--timeout", "30s").mustSucceed(t)
		if lastLine(k.out) != lastLine(o.out) {
			t.Errorf("last lines differ: kubectl %q, ordinal %q", lastLine(k.out), lastLine(o.out))
		}
		js := ordinal(t, ns, "rollout", "status", "web", "-o", "json").mustSucceed(t)
		var snap rolloutview.Snapshot
		if err := json.Unmarshal([]byte(js.out), &snap); err != nil || !snap.Done || len(snap.Cells) != 3 {
			t.Errorf("snapshot %+v, err %v", snap, err)
		}
	})
	t.Run("undo rolls back like kubectl and skips the same way", func(t *testing.T) {
		o := ordinal(t, ns, "rollout", "undo", "web").mustSucceed(t)
		if o.out != "statefulset.apps/web rolled back\n" {
			t.Errorf("ordinal undo printed %q", o.out)
		}
		set := waitComplete(t, ns)
		if img := set.Spec.Template.Spec.Containers[0].Image; img != imageOld {
			t.Errorf("image after undo %s, want %s", img, imageOld)
		}
		o = ordinal(t, ns, "rollout", "undo", "web", "--to-revision", "3").mustSucceed(t)
		if want := "statefulset.apps/web skipped rollback (current template already matches revision 3)\n"; o.out != want {
			t.Errorf("ordinal printed %q, want %q", o.out, want)
		}
		// kubectl compares bytes it encodes itself with the revision's. v1.32
		// still encodes "creationTimestamp":null in the template, which the
		// 1.36 libraries no longer write (upstream #134773), so it sends a
		// PATCH that changes nothing and says "rolled back". kubectl 1.34+
		// skips, as ordinal does. Either way the set must not change.
		generation := getSet(t, ns).Generation
		k := kubectl(t, ns, "rollout", "undo", "statefulset/web", "--to-revision", "3").mustSucceed(t)
		if !strings.HasPrefix(k.out, "statefulset.apps/web skipped rollback") && k.out != "statefulset.apps/web rolled back\n" {
			t.Errorf("kubectl printed %q", k.out)
		}
		if got := getSet(t, ns).Generation; got != generation {
			t.Errorf("kubectl's undo to the current revision changed the template: generation %d -> %d", generation, got)
		}
		k = kubectl(t, ns, "rollout", "undo", "statefulset/web", "--to-revision", "7")
		o = ordinal(t, ns, "rollout", "undo", "web", "--to-revision", "7")
		if k.code == 0 || o.code != 3 || !strings.Contains(k.err, "unable to find specified revision 7 in history") ||
			o.err != "ordinal: unable to find specified revision 7 in history\n" {
			t.Errorf("missing revision: kubectl %d %q, ordinal %d %q", k.code, k.err, o.code, o.err)
		}
	})
	t.Run("restart stamps restartedAt and replaces every pod", func(t *testing.T) {
		o := ordinal(t, ns, "rollout", "restart", "web").mustSucceed(t)
		if o.out != "statefulset.apps/web restarted\n" {
			t.Errorf("restart printed %q", o.out)
		}
		set := waitComplete(t, ns)
		if set.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
			t.Error("no restartedAt annotation on the template")
		}
		if got := getPod(t, ns, "web-0").Labels["controller-revision-hash"]; got != set.Status.UpdateRevision {
			t.Errorf("web-0 at %s after restart, want %s", got, set.Status.UpdateRevision)
		}
	})
}

// TestKubectlPlugin runs the command as kubectl runs plugins: an
// executable named kubectl-ordinal in PATH (here, this test binary acting
// as ordinal).
func TestKubectlPlugin(t *testing.T) {
	ns := namespace(t)
	createWeb(t, ns)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "kubectl-ordinal")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), execMainEnv+"=1", "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := runProcess(t, env, "kubectl", "ordinal", "rollout", "history", "statefulset/web", "--kubeconfig", kubeconfig, "-n", ns).mustSucceed(t)
	if diff := cmp.Diff([][2]string{{"1", "<none>"}}, historyRows(r.out)); diff != "" {
		t.Errorf("plugin history (-want +got):\n%s", diff)
	}
	r = runProcess(t, env, "kubectl", "ordinal", "rollout", "status", "deployment/x", "--kubeconfig", kubeconfig, "-n", ns)
	if r.code != 2 || r.err != "ordinal: deployment/x: only statefulsets are supported\n" {
		t.Errorf("plugin exit %d, stderr %q", r.code, r.err)
	}
	r = runProcess(t, env, "kubectl", "ordinal", "completion", "bash").mustSucceed(t)
	mustContain(t, "completion script", r.out, "__start_ordinal")
}
