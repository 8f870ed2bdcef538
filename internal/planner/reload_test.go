package planner_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

const (
	oldCopy = "web-config-aaaaaaaaaa"
	newCopy = "web-config-bbbbbbbbbb"
)

// readsConfig gives the template a configMap volume of copy, mounted by
// its container; env also reads envCopy through the environment when set.
func readsConfig(copyName, envCopy string) testgen.SetOption {
	return func(set *appsv1.StatefulSet) {
		spec := &set.Spec.Template.Spec
		spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: copyName}}}}}
		c := &spec.Containers[0]
		c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}}
		if envCopy != "" {
			c.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: envCopy}}}}
		}
	}
}

// configRollout is a set of three whose update revision differs from its
// current one in the copy its volume reads (and, with env, in the copy
// its environment reads), each revision recording its copies.
func configRollout(t *testing.T, env bool) fixture {
	t.Helper()
	envOld, envNew := "", ""
	if env {
		envOld, envNew = oldCopy, newCopy
	}
	old := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:1"), readsConfig(oldCopy, envOld))
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:1"), readsConfig(newCopy, envNew))
	cur, upd := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	for rev, c := range map[*appsv1.ControllerRevision]string{cur: oldCopy, upd: newCopy} {
		if err := configrev.Annotate(rev, []configrev.Record{{Kind: configrev.ConfigMap, Name: "web-config", Copy: c}}); err != nil {
			t.Fatal(err)
		}
	}
	set.Status.CurrentRevision, set.Status.UpdateRevision = cur.Name, upd.Name
	return fixture{set: set, cur: cur, upd: upd}
}

// live records on a pod that its live ConfigMap holds rev's copy.
func live(rev *appsv1.ControllerRevision, pending bool) testgen.PodOption {
	return func(pod *corev1.Pod) {
		c := oldCopy
		if rev.Revision == 2 {
			c = newCopy
		}
		rec := configrev.ReloadRecord{Revision: rev.Name, Time: now.Add(-time.Minute), Pending: pending,
			Live: []configrev.Live{{Name: configrev.LiveName(pod.Name, "web-config"), Source: "web-config", Copy: c}}}
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[v1alpha1.ConfigReloadAnnotation] = rec.Encode()
	}
}

func reloadHook(proceed bool) *planner.Hook {
	return &planner.Hook{Name: "reload", Label: v1alpha1.ReloadHookLabel, Timeout: 5 * time.Minute, Proceed: proceed, Reload: true}
}

func reloads(h *planner.Hook) func(*planner.Extended) {
	return func(e *planner.Extended) { e.Reload = &planner.Reload{Hook: h} }
}

func TestAReloadMovesOnePodAtATimeWithoutARestart(t *testing.T) {
	f := configRollout(t, false)
	halt := reloadHook(false)
	since := now.Add(-time.Minute)
	runPriority(t, []priorityScenario{{
		name:  "a data change reloads the highest pod, not the others, within maxUnavailable 1",
		f:     f,
		e:     extended(reloads(halt)),
		pods:  with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.cur, false))),
		steps: []string{"rolling update: ReloadPod web-2"},
	}, {
		name:  "the reloading pod's hook starts, and no other pod moves while it counts against the budget",
		f:     f,
		e:     extended(reloads(halt)),
		pods:  with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.upd, true))),
		steps: []string{"reload: StartHook web-2"},
	}, {
		name: "the hook is Pending: nothing moves",
		f:    f,
		e:    extended(reloads(halt)),
		pods: with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)),
			f.pod(2, live(f.upd, true), hookAt(halt, v1alpha1.HookPending, since, f.upd.Name, 0, time.Time{}))),
		steps: nil,
	}, {
		name: "the hook is Done: the label moves",
		f:    f,
		e:    extended(reloads(halt)),
		pods: with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)),
			f.pod(2, live(f.upd, true), hookAt(halt, v1alpha1.HookDone, since, f.upd.Name, 0, time.Time{}))),
		steps: []string{"reload: PatchPod web-2"},
	}, {
		name:  "without a reload hook the label moves once the data is written",
		f:     f,
		e:     extended(reloads(nil)),
		pods:  with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.upd, true))),
		steps: []string{"reload: PatchPod web-2"},
	}, {
		name:  "after the label moved the next pod reloads",
		f:     f,
		e:     extended(reloads(halt)),
		pods:  with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.updated(2, live(f.upd, false))),
		steps: []string{"rolling update: ReloadPod web-1"},
	}, {
		name: "the hook Failed under Halt: the pod stays as it is",
		f:    f,
		e:    extended(reloads(halt)),
		pods: with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)),
			f.pod(2, live(f.upd, true), hookAt(halt, v1alpha1.HookFailed, since, f.upd.Name, 0, time.Time{}))),
		steps: nil,
	}, {
		name: "the hook Failed under Proceed: the label moves",
		f:    f,
		e:    extended(reloads(reloadHook(true))),
		pods: with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)),
			f.pod(2, live(f.upd, true), hookAt(halt, v1alpha1.HookFailed, since, f.upd.Name, 0, time.Time{}))),
		steps: []string{"reload: PatchPod web-2"},
	}, {
		name:  "a pod made without live ConfigMaps is recreated",
		f:     f,
		e:     extended(reloads(halt)),
		pods:  with(f.pods(0, 1, 2)),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "under Restart the live ConfigMaps change nothing: the pod is recreated",
		f:     f,
		e:     extended(),
		pods:  with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.cur, false))),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "a missing pod is created reading its live ConfigMap",
		f:     f,
		e:     extended(reloads(halt)),
		pods:  with(f.pods(), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false))),
		steps: []string{"replicas: CreatePod web-2 at update"},
	}})
}

func TestAReloadWritesTheNewCopyAndRecordsItPending(t *testing.T) {
	f := configRollout(t, false)
	plan := f.ext(extended(reloads(reloadHook(false))), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.cur, false)))
	a := onlyAction(t, plan)
	want := []configrev.Live{{Name: "web-2.web-config", Source: "web-config", Copy: newCopy}}
	if diff := cmp.Diff(want, a.Config); diff != "" {
		t.Errorf("live ConfigMaps written (-want +got):\n%s", diff)
	}
	rec := patchedRecord(t, a.Patch)
	if rec.Revision != f.upd.Name || !rec.Pending {
		t.Errorf("record %+v: want revision %s, pending", rec, f.upd.Name)
	}
	if !strings.Contains(a.Reason, "without a restart") {
		t.Errorf("reason %q does not say the pod keeps running", a.Reason)
	}
}

func TestAReloadedPodsLabelMovesWithItsRecord(t *testing.T) {
	f := configRollout(t, false)
	plan := f.ext(extended(reloads(nil)), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.upd, true)))
	a := onlyAction(t, plan)
	var patch struct {
		Metadata struct {
			Labels map[string]*string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(a.Patch, &patch); err != nil {
		t.Fatal(err)
	}
	if got := patch.Metadata.Labels[appsv1.StatefulSetRevisionLabel]; got == nil || *got != f.upd.Name {
		t.Errorf("revision label patched to %v, want %s", got, f.upd.Name)
	}
	if rec := patchedRecord(t, a.Patch); rec.Pending || rec.Revision != f.upd.Name {
		t.Errorf("record %+v: want revision %s, not pending", rec, f.upd.Name)
	}
	if a.EventReason != planner.EventConfigReloaded {
		t.Errorf("event %q, want %s", a.EventReason, planner.EventConfigReloaded)
	}
}

func TestAReloadUnderWayFollowsItsTarget(t *testing.T) {
	f := configRollout(t, false)
	t.Run("rolled back to the pod's own revision: its data is written back and the hook runs for it", func(t *testing.T) {
		in := f.input([]*corev1.Pod{f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.upd, true))})
		in.Update = f.cur
		in.Extended = extended(reloads(reloadHook(false)))
		a := onlyAction(t, compute(in))
		if a.Kind != planner.ReloadPod || a.Config[0].Copy != oldCopy {
			t.Fatalf("got %s writing %v, want ReloadPod writing %s", a.Kind, a.Config, oldCopy)
		}
		if rec := patchedRecord(t, a.Patch); rec.Revision != f.cur.Name || !rec.Pending {
			t.Errorf("record %+v: want the pod's own revision %s, pending", rec, f.cur.Name)
		}
	})
	t.Run("paused: the reload waits where it is", func(t *testing.T) {
		e := extended(reloads(reloadHook(false)))
		e.Paused = true
		plan := f.ext(e, f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.upd, true)))
		if len(plan.Steps) != 0 {
			t.Errorf("steps %v, want none", f.summary(plan))
		}
		if !slicesContain(waitLinesPolicy(plan), "waits where it is") {
			t.Errorf("waits %v do not say the reload waits", waitLinesPolicy(plan))
		}
	})
}

func TestAChangeTheFilesCannotCarryRecreatesThePod(t *testing.T) {
	f := configRollout(t, true)
	plan := f.ext(extended(reloads(reloadHook(false))), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), f.pod(2, live(f.cur, false)))
	a := onlyAction(t, plan)
	if a.Kind != planner.DeletePod || !strings.Contains(a.Reason, "recreated, not reloaded") || !strings.Contains(a.Reason, "containers[") {
		t.Errorf("%s: %q; want a delete that says the environment's change cannot reload", a.Kind, a.Reason)
	}
}

func TestAPodMadeUnderReloadReadsItsLiveConfigMap(t *testing.T) {
	f := configRollout(t, false)
	plan := f.ext(extended(reloads(nil)), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)))
	a := onlyAction(t, plan)
	if got := a.Pod.Spec.Volumes[0].ConfigMap.Name; got != "web-2.web-config" {
		t.Errorf("the new pod's volume reads %s, want its live ConfigMap web-2.web-config", got)
	}
	want := []configrev.Live{{Name: "web-2.web-config", Source: "web-config", Copy: newCopy}}
	if diff := cmp.Diff(want, a.Config); diff != "" {
		t.Errorf("written before the create (-want +got):\n%s", diff)
	}
	if rec, ok := configrev.ReloadOf(a.Pod.Annotations); !ok || rec.Pending || rec.Revision != f.upd.Name {
		t.Errorf("record %+v (%v): want revision %s, not pending", rec, ok, f.upd.Name)
	}
}

func TestAReloadHookCallNamesTheLiveConfigMapsAndTheirCopies(t *testing.T) {
	f := configRollout(t, false)
	h := reloadHook(false)
	h.HTTP = &planner.HookEndpoint{URL: "http://hooks.example/reload"}
	pod := f.pod(2, live(f.upd, true), hookAt(h, v1alpha1.HookPending, now.Add(-time.Minute), f.upd.Name, 0, time.Time{}))
	a := onlyAction(t, f.ext(extended(reloads(h)), f.pod(0, live(f.cur, false)), f.pod(1, live(f.cur, false)), pod))
	if a.Kind != planner.CallHook {
		t.Fatalf("got %s, want CallHook", a.Kind)
	}
	req := a.Call.Request
	want := []v1alpha1.HookConfig{{ConfigMap: "web-config", Live: "web-2.web-config", Copy: newCopy}}
	if diff := cmp.Diff(want, req.Config); diff != "" || req.Revision != f.cur.Name || req.UpdateRevision != f.upd.Name || req.Hook != "reload" {
		t.Errorf("request %+v; config (-want +got):\n%s", req, diff)
	}
}

func onlyAction(t *testing.T, plan planner.Plan) planner.Action {
	t.Helper()
	var all []planner.Action
	for _, s := range plan.Steps {
		all = append(all, s.Actions...)
	}
	if len(all) != 1 {
		t.Fatalf("%d actions, want 1: %+v", len(all), plan.Steps)
	}
	return all[0]
}

func patchedRecord(t *testing.T, patch []byte) configrev.ReloadRecord {
	t.Helper()
	var p struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		t.Fatal(err)
	}
	rec, ok := configrev.ReloadOf(p.Metadata.Annotations)
	if !ok {
		t.Fatalf("the patch %s holds no reload record", patch)
	}
	return rec
}

func waitLinesPolicy(plan planner.Plan) []string {
	var out []string
	for _, w := range plan.Waits {
		out = append(out, w.Policy)
	}
	return out
}

func slicesContain(lines []string, part string) bool {
	for _, l := range lines {
		if strings.Contains(l, part) {
			return true
		}
	}
	return false
}
