package planner_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// hooks returns an extension option giving the set hooks.
func hooks(preUpdate, preDelete *planner.Hook) func(*planner.Extended) {
	return func(e *planner.Extended) { e.PreUpdate, e.PreDelete = preUpdate, preDelete }
}

func handshake(name string, proceed bool) *planner.Hook {
	label := v1alpha1.PreUpdateHookLabel
	if name == "preDelete" {
		label = v1alpha1.PreDeleteHookLabel
	}
	return &planner.Hook{Name: name, Label: label, Timeout: 5 * time.Minute, Proceed: proceed}
}

func httpHook(name, url string) *planner.Hook {
	h := handshake(name, false)
	h.HTTP = &planner.HookEndpoint{URL: url}
	return h
}

// hookAt labels a pod with a hook's state, started at since for the
// revision rev, with attempts failed calls, the last at last.
func hookAt(h *planner.Hook, state string, since time.Time, rev string, attempts int32, last time.Time) testgen.PodOption {
	return func(pod *corev1.Pod) {
		testgen.PodLabel(h.Label, state)(pod)
		rec := v1alpha1.HookRecord{Since: since, Revision: rev, Attempts: attempts, LastAttempt: last}
		if attempts > 0 {
			rec.LastError = "HTTP 503"
		}
		text, _ := json.Marshal(rec)
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[h.Label] = string(text)
	}
}

func TestPreUpdateHandshakeHoldsTheRollingUpdate(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	halt, proceed := handshake("preUpdate", false), handshake("preUpdate", true)
	upd := f.upd.Name
	runPriority(t, []priorityScenario{{
		name:  "the pod the update would delete is labelled Pending instead, and only that one within maxUnavailable 1",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.pod(2)),
		steps: []string{"rolling update: StartHook web-2"},
	}, {
		name:  "Pending: nothing happens, and no other pod is started",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookPending, now.Add(-time.Minute), upd, 0, time.Time{}))),
		steps: nil,
	}, {
		name:  "Done: the pod is deleted",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookDone, now.Add(-time.Minute), upd, 0, time.Time{}))),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "Done for another update revision: the hook runs again",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookDone, now.Add(-time.Minute), "web-older", 0, time.Time{}))),
		steps: []string{"rolling update: StartHook web-2"},
	}, {
		name:  "timed out under Halt: the pod is left alone",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookPending, now.Add(-6*time.Minute), upd, 0, time.Time{}))),
		steps: nil,
	}, {
		name:  "timed out under Proceed: the pod is deleted",
		f:     f,
		e:     extended(hooks(proceed, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(proceed, v1alpha1.HookPending, now.Add(-6*time.Minute), upd, 0, time.Time{}))),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "Failed under Halt: the pod is left alone",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookFailed, now.Add(-time.Minute), upd, 0, time.Time{}))),
		steps: nil,
	}, {
		name:  "Failed under Proceed: the pod is deleted",
		f:     f,
		e:     extended(hooks(proceed, nil)),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(proceed, v1alpha1.HookFailed, now.Add(-time.Minute), upd, 0, time.Time{}))),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name:  "preUpdate Done, then preDelete runs before the delete",
		f:     f,
		e:     extended(hooks(halt, handshake("preDelete", false))),
		pods:  with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookDone, now.Add(-time.Minute), upd, 0, time.Time{}))),
		steps: []string{"rolling update: StartHook web-2"},
	}, {
		name:  "a pod at the update revision that still has a hook label loses it",
		f:     f,
		e:     extended(hooks(halt, nil)),
		pods:  with(f.pods(0, 1), f.updated(2, hookAt(halt, v1alpha1.HookDone, now.Add(-time.Minute), upd, 0, time.Time{}))),
		steps: []string{"rolling update: StartHook web-1", "hooks: EndHook web-2"},
	}})
}

// A hook's start names the resourceVersion of the pod its plan read: a
// start planned from an older view than the API server holds (a cache
// that does not yet show this hook's start, or an answer written since)
// must fail rather than label an answered hook Pending again.
func TestAHookStartIsGuardedByThePodItRead(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	halt := handshake("preUpdate", false)
	stale := f.pod(2)
	stale.ResourceVersion = "17"
	plan := f.ext(extended(hooks(halt, nil)), with(f.pods(0, 1), stale)...)
	var starts int
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			if a.Kind != planner.StartHook {
				continue
			}
			starts++
			var patch struct {
				Metadata struct {
					ResourceVersion string            `json:"resourceVersion"`
					Labels          map[string]string `json:"labels"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(a.Patch, &patch); err != nil {
				t.Fatal(err)
			}
			if patch.Metadata.ResourceVersion != "17" || patch.Metadata.Labels[halt.Label] != v1alpha1.HookPending {
				t.Errorf("the start of %s patches %s; want its label %s=%s guarded by resourceVersion 17", a.Pod.Name, a.Patch, halt.Label, v1alpha1.HookPending)
			}
		}
	}
	if starts != 1 {
		t.Fatalf("the plan started %d hooks, want 1: %s", starts, f.summary(plan))
	}
}

func TestAHookSaysWhatItWaitsFor(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	halt, proceed := handshake("preUpdate", false), handshake("preUpdate", true)
	upd := f.upd.Name

	plan := f.ext(extended(hooks(halt, nil)), with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookPending, now.Add(-time.Minute), upd, 0, time.Time{})))...)
	if len(plan.Waits) != 1 || !strings.Contains(plan.Waits[0].Policy, "apps.ordinal.dev/pre-update=Done") || !strings.Contains(plan.Waits[0].Policy, "times out in 4m0s") ||
		!strings.Contains(plan.Waits[0].Hint, "kubectl label pod web-2 apps.ordinal.dev/pre-update=Done --overwrite") {
		t.Errorf("waits = %+v, want one on web-2 that names the label, the time left and the kubectl command", plan.Waits)
	}
	if plan.RequeueAfter <= 0 || plan.RequeueAfter > 4*time.Minute {
		t.Errorf("RequeueAfter = %s, want at most the 4m the hook has left", plan.RequeueAfter)
	}
	blocked := plan.Extended.Status.BlockedBy
	if len(blocked) != 1 || blocked[0].Reason != "PreUpdateHookPending" || blocked[0].Permanent || blocked[0].Pod != "web-2" {
		t.Fatalf("blockedBy = %+v, want web-2 PreUpdateHookPending, not permanent", blocked)
	}
	// The status says when the hook times out, so that it does not change
	// while nothing happens.
	later := f.input(with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookPending, now.Add(-time.Minute), upd, 0, time.Time{}))))
	later.Extended, later.Now = extended(hooks(halt, nil)), now.Add(10*time.Second)
	if again := compute(later).Extended.Status.BlockedBy; len(again) != 1 || again[0].Message != blocked[0].Message {
		t.Errorf("blockedBy 10s later = %+v, want the same message %q", again, blocked[0].Message)
	}

	// A value the controller does not know is reported, and waits.
	plan = f.ext(extended(hooks(halt, nil)), with(f.pods(0, 1), f.pod(2, hookAt(halt, "done", now.Add(-time.Minute), upd, 0, time.Time{})))...)
	if !hasWarning(plan, planner.ReasonInvalidHookLabel) || len(plan.Steps) != 0 {
		t.Errorf("a hook labelled \"done\": warnings %+v, steps %v; want %s and nothing done", plan.Warnings, f.summary(plan), planner.ReasonInvalidHookLabel)
	}

	plan = f.ext(extended(hooks(halt, nil)), with(f.pods(0, 1), f.pod(2, hookAt(halt, v1alpha1.HookPending, now.Add(-6*time.Minute), upd, 0, time.Time{})))...)
	blocked = plan.Extended.Status.BlockedBy
	if len(blocked) != 1 || blocked[0].Reason != "PreUpdateHookTimedOut" || !blocked[0].Permanent {
		t.Errorf("blockedBy = %+v, want web-2 PreUpdateHookTimedOut, permanent", blocked)
	}
	if !hasWarning(plan, planner.ReasonHookFailed) {
		t.Errorf("warnings = %+v, want %s", plan.Warnings, planner.ReasonHookFailed)
	}
	if c := condition(plan.Extended.Status.Conditions, planner.ConditionProgressing); c.Reason != planner.ReasonRolloutFailed {
		t.Errorf("Progressing = %+v, want reason %s: a halted hook fails the rollout", c, planner.ReasonRolloutFailed)
	}

	plan = f.ext(extended(hooks(proceed, nil)), with(f.pods(0, 1), f.pod(2, hookAt(proceed, v1alpha1.HookPending, now.Add(-6*time.Minute), upd, 0, time.Time{})))...)
	if !hasWarning(plan, planner.ReasonHookFailed) || len(plan.Extended.Status.BlockedBy) != 0 {
		t.Errorf("under Proceed: warnings %+v, blockedBy %+v; want the warning and nothing blocked", plan.Warnings, plan.Extended.Status.BlockedBy)
	}
}

func TestAnHTTPHookIsCalledAndRetried(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	h := httpHook("preUpdate", "http://switch.example:8080/switchover")
	upd := f.upd.Name
	started := now.Add(-time.Minute)

	plan := f.ext(extended(hooks(h, nil)), with(f.pods(0, 1), f.pod(2, hookAt(h, v1alpha1.HookPending, started, upd, 0, time.Time{})))...)
	if diff := cmp.Diff([]string{"rolling update: CallHook web-2"}, f.summary(plan)); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
	call := plan.Steps[0].Actions[0].Call
	want := v1alpha1.HookRequest{Hook: "preUpdate", Namespace: f.set.Namespace, StatefulSet: "web", Pod: "web-2", PodUID: string(f.pod(2).UID), Ordinal: 2,
		Revision: f.cur.Name, UpdateRevision: upd, Attempt: 1}
	if diff := cmp.Diff(want, call.Request); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if call.Timeout != planner.MaxHookCall || call.Hook.HTTP != h.HTTP {
		t.Errorf("call timeout %s to %v, want %s to %v", call.Timeout, call.Hook.HTTP, planner.MaxHookCall, h.HTTP)
	}

	// Two calls failed, the last 1 s ago: the next waits 2 s after it.
	plan = f.ext(extended(hooks(h, nil)), with(f.pods(0, 1), f.pod(2, hookAt(h, v1alpha1.HookPending, started, upd, 2, now.Add(-time.Second))))...)
	if len(plan.Steps) != 0 || plan.RequeueAfter != time.Second {
		t.Errorf("during the pause: steps %v, RequeueAfter %s; want none, 1s", f.summary(plan), plan.RequeueAfter)
	}
	if len(plan.Waits) != 1 || !strings.Contains(plan.Waits[0].Policy, "2 failed so far (last: HTTP 503)") {
		t.Errorf("waits = %+v, want the failed calls and the last error", plan.Waits)
	}
	plan = f.ext(extended(hooks(h, nil)), with(f.pods(0, 1), f.pod(2, hookAt(h, v1alpha1.HookPending, started, upd, 2, now.Add(-2*time.Second))))...)
	if len(plan.Steps) != 1 || plan.Steps[0].Actions[0].Call.Request.Attempt != 3 {
		t.Errorf("after the pause: steps %v, want call 3", f.summary(plan))
	}

	// Close to the timeout the call is cut to the time left.
	plan = f.ext(extended(hooks(h, nil)), with(f.pods(0, 1), f.pod(2, hookAt(h, v1alpha1.HookPending, now.Add(-5*time.Minute+3*time.Second), upd, 0, time.Time{})))...)
	if c := plan.Steps[0].Actions[0].Call; c.Timeout != 3*time.Second {
		t.Errorf("call timeout %s, want the 3s left", c.Timeout)
	}
}

func TestPreDeleteHoldsScaleIn(t *testing.T) {
	h := handshake("preDelete", false)
	ordered := steady(testgen.Replicas(2))
	parallel := steady(testgen.Replicas(2), testgen.Parallel())
	rev := ordered.upd.Name
	runPriority(t, []priorityScenario{{
		name:  "OrderedReady: the highest condemned pod is labelled, not deleted",
		f:     ordered,
		e:     extended(hooks(nil, h)),
		pods:  ordered.pods(0, 1, 2, 3),
		steps: []string{"scale down: StartHook web-3"},
	}, {
		name:  "OrderedReady: Done, it is deleted",
		f:     ordered,
		e:     extended(hooks(nil, h)),
		pods:  with(ordered.pods(0, 1, 2), ordered.pod(3, hookAt(h, v1alpha1.HookDone, now.Add(-time.Minute), rev, 0, time.Time{}))),
		steps: []string{"scale down: DeletePod web-3"},
	}, {
		name:  "Parallel: a halted pod stays and the other goes",
		f:     parallel,
		e:     extended(hooks(nil, h)),
		pods:  with(parallel.pods(0, 1), parallel.pod(2, hookAt(h, v1alpha1.HookFailed, now.Add(-time.Minute), rev, 0, time.Time{})), parallel.pod(3, hookAt(h, v1alpha1.HookDone, now.Add(-time.Minute), rev, 0, time.Time{}))),
		steps: []string{"scale down*1: DeletePod web-3"},
	}, {
		name:  "a Failed pod is replaced without a hook",
		f:     ordered,
		e:     extended(hooks(nil, h)),
		pods:  with(ordered.pods(0), ordered.pod(1, testgen.Failed())),
		steps: []string{"replicas: DeletePod web-1"},
	}, {
		name:  "a pod labelled delete-requested runs the hook first",
		f:     ordered,
		e:     extended(hooks(nil, h)),
		pods:  with(ordered.pods(0), ordered.pod(1, testgen.PodLabel(v1alpha1.DeleteRequestedLabel, "true"))),
		steps: []string{"delete requested: StartHook web-1"},
	}, {
		name:  "a hook the set no longer has leaves no label, at any revision",
		f:     ordered,
		e:     extended(func(e *planner.Extended) { e.Paused = true }),
		pods:  with(ordered.pods(0), ordered.pod(1, testgen.Revision("web-older"), hookAt(h, v1alpha1.HookPending, now.Add(-time.Minute), rev, 0, time.Time{}))),
		steps: []string{"hooks: EndHook web-1"},
	}, {
		name:  "scale-in undone: a pod back in range loses its preDelete label",
		f:     ordered,
		e:     extended(hooks(nil, h)),
		pods:  with(ordered.pods(0), ordered.pod(1, hookAt(h, v1alpha1.HookPending, now.Add(-time.Minute), rev, 0, time.Time{}))),
		steps: []string{"hooks: EndHook web-1"},
	}})
}

func TestPreUpdateComesBeforeAnUpdateInPlace(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	h := handshake("preUpdate", false)
	upd := f.upd.Name
	open := gate(corev1.ConditionTrue, testgen.Epoch)
	e := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, hooks(h, nil))
	runPriority(t, []priorityScenario{{
		name:  "the hook starts before the gate goes False",
		f:     f,
		e:     e,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.pod(2, open)},
		steps: []string{"rolling update: StartHook web-2"},
	}, {
		name:  "Done: the gate goes False",
		f:     f,
		e:     e,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.pod(2, open, hookAt(h, v1alpha1.HookDone, now, upd, 0, time.Time{}))},
		steps: []string{"rolling update: PatchPodStatus web-2"},
	}})
	plan := f.ext(e, f.pod(0, open), f.pod(1, open), f.pod(2, testgen.NotReady(now), gate(corev1.ConditionFalse, now), hookAt(h, v1alpha1.HookDone, now, upd, 0, time.Time{})))
	if diff := cmp.Diff([]string{"in place: PatchPod web-2"}, f.summary(plan)); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
	var patch struct {
		Metadata struct {
			Labels      map[string]*string `json:"labels"`
			Annotations map[string]*string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(plan.Steps[0].Actions[0].Patch, &patch); err != nil {
		t.Fatal(err)
	}
	l, lok := patch.Metadata.Labels[v1alpha1.PreUpdateHookLabel]
	a, aok := patch.Metadata.Annotations[v1alpha1.PreUpdateHookLabel]
	if !lok || l != nil || !aok || a != nil {
		t.Errorf("the in-place patch %s does not remove the served hook's label and annotation", plan.Steps[0].Actions[0].Patch)
	}
	// A change of labels alone disturbs nothing and runs no hook.
	meta := change(nil, []testgen.SetOption{templateLabel("tier", "gold")}, testgen.Replicas(3))
	plan = meta.ext(e, meta.pod(0, open), meta.pod(1, open), meta.pod(2, open))
	if diff := cmp.Diff([]string{"rolling update: PatchPod web-2", "rolling update: PatchPod web-1", "rolling update: PatchPod web-0"}, meta.summary(plan)); diff != "" {
		t.Errorf("a metadata-only change (-want +got):\n%s", diff)
	}
}

func hasWarning(plan planner.Plan, reason string) bool {
	for _, w := range plan.Warnings {
		if w.Reason == reason {
			return true
		}
	}
	return false
}

func TestRedactURLDropsQueryFragmentAndUserInformation(t *testing.T) {
	for raw, want := range map[string]string{
		"https://ops:hunter2@switch.example:8443/a/b?token=s3cret#top": "https://switch.example:8443/a/b",
		"http://switch.example/switchover":                             "http://switch.example/switchover",
		"http://[fd00::1]:8080/x?":                                     "http://[fd00::1]:8080/x",
		"http://switch.example/p%2Fq?k=v":                              "http://switch.example/p%2Fq",
		"http://%zz":                                                   "(a URL that does not parse)",
		"switch.example/x?token=s3cret":                                "(a URL that does not parse)",
	} {
		if got := planner.RedactURL(raw); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// Every text a plan carries about an http hook (step reasons, events,
// waits, warnings, blockedBy) names its URL without the query and user
// information; only the call itself holds the full URL.
func TestAPlanNeverShowsAHookURLsCredentials(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	h := httpHook("preUpdate", "https://ops:hunter2@switch.example:8443/switchover?token=s3cret")
	upd := f.upd.Name
	for name, pod := range map[string]*corev1.Pod{
		"started":                     f.pod(2),
		"called":                      f.pod(2, hookAt(h, v1alpha1.HookPending, now.Add(-time.Minute), upd, 0, time.Time{})),
		"waiting":                     f.pod(2, hookAt(h, v1alpha1.HookPending, now.Add(-time.Minute), upd, 1, now)),
		"timed out (the URL unnamed)": f.pod(2, hookAt(h, v1alpha1.HookPending, now.Add(-time.Hour), upd, 3, now.Add(-time.Minute))),
	} {
		plan := f.ext(extended(hooks(h, nil)), with(f.pods(0, 1), pod)...)
		var texts []string
		for _, s := range plan.Steps {
			for _, a := range s.Actions {
				texts = append(texts, a.Reason, a.EventMessage)
			}
		}
		for _, w := range plan.Waits {
			texts = append(texts, w.Policy, w.Hint)
		}
		for _, w := range plan.Warnings {
			texts = append(texts, w.Message, w.Event)
		}
		for _, b := range plan.Extended.Status.BlockedBy {
			texts = append(texts, b.Message)
		}
		all := strings.Join(texts, "\n")
		if named := strings.Contains(all, "https://switch.example:8443/switchover"); named == strings.Contains(name, "unnamed") {
			t.Errorf("%s: the plan's texts name the URL, or not, unexpectedly:\n%s", name, all)
		}
		for _, secret := range []string{"hunter2", "s3cret", "ops:"} {
			if strings.Contains(all, secret) {
				t.Errorf("%s: the plan's texts show %q:\n%s", name, secret, all)
			}
		}
	}
}
