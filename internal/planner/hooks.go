package planner

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
)

// String is the endpoint as messages show it: a URL without its query,
// fragment and user information (RedactURL), or the Service's URL as
// https://<name>.<namespace>.svc:<port><path> (http without a CA bundle).
func (e *HookEndpoint) String() string {
	if e.Service == nil {
		return RedactURL(e.URL)
	}
	scheme := "http"
	if len(e.CABundle) > 0 {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s.%s.svc:%d%s", scheme, e.Service.Name, e.Service.Namespace, e.Service.Port, e.Service.Path)
}

// RedactURL is raw without its query, fragment and user information,
// which may hold credentials: the form every message, status and log
// writes a hook's URL in. A URL that does not parse is not shown at all.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "(a URL that does not parse)"
	}
	clean := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return clean.String()
}

// Action kinds of lifecycle hooks. Each carries the observed pod.
const (
	// StartHook labels the pod Pending and records when (Patch, a
	// strategic merge patch naming the pod's UID).
	StartHook Kind = "StartHook"
	// CallHook makes one call of an http hook (Call), without waiting for
	// it: the executor labels the pod Done when it succeeds, or records
	// the failure in the hook's annotation.
	CallHook Kind = "CallHook"
	// EndHook removes a hook's label and annotation from a pod the hook
	// is no longer needed for (Patch).
	EndHook Kind = "EndHook"
)

// Hook event reasons and blockedBy reasons (prefixed by the hook,
// e.g. PreUpdateHookPending).
const (
	EventHookStarted = "HookStarted"
	ReasonHookFailed = "HookFailed"
	// ReasonInvalidHookLabel warns of a hook label whose value the
	// controller does not know (a typo such as "done").
	ReasonInvalidHookLabel = "InvalidHookLabel"
	hookPending            = "HookPending"
	hookTimedOut           = "HookTimedOut"
	hookFailed             = "HookFailed"
	// MaxHookCall bounds one call of an http hook.
	MaxHookCall = 10 * time.Second
)

// hookNeed says which hooks a disturbance of a pod runs.
type hookNeed uint8

const (
	needUpdate hookNeed = 1 << iota
	needDelete
)

// hooksFor lists the hooks the set has for need, preUpdate first. A pod
// not yet started, on its way out, or Failed or Succeeded gets none: there
// is nothing running for a hook to prepare.
func (p *planner) hooksFor(s slot, need hookNeed) []*Hook {
	if p.ext == nil || s.placeholder || !isCreated(s.pod) || isTerminating(s.pod) || isFinished(s.pod) {
		return nil
	}
	var out []*Hook
	if need&needUpdate != 0 && p.ext.PreUpdate != nil {
		out = append(out, p.ext.PreUpdate)
	}
	if need&needDelete != 0 && p.ext.PreDelete != nil {
		out = append(out, p.ext.PreDelete)
	}
	return out
}

// hooked returns act's actions once the roles allow the pod in s to be
// disrupted (no two holders of its exclusive role, its switchover done:
// rolesAllow) and the hooks need runs for it are done, and otherwise what carries them on (start a hook, call an
// http hook) while the pod is left alone. act runs only when the pod is
// disturbed, so whatever it counts (deletes, the rolling budget's
// callers aside) stays true.
func (p *planner) hooked(s slot, need hookNeed, act func() []Action) []Action {
	if actions, ok := p.rolesAllow(s); !ok {
		return actions
	}
	for _, h := range p.hooksFor(s, need) {
		if actions, done := p.runHook(s, h); !done {
			return actions
		}
	}
	return p.disrupting(s, need, act)
}

// hookRecordOf reads the hook's annotation on pod; the zero record when
// there is none or it cannot be read.
func hookRecordOf(pod *corev1.Pod, label string) v1alpha1.HookRecord {
	var r v1alpha1.HookRecord
	if v, ok := pod.Annotations[label]; ok {
		_ = json.Unmarshal([]byte(v), &r)
	}
	return r
}

// runHook judges one hook of the pod in s: done (Done, or failed under
// Proceed), or what to do and to wait for.
func (p *planner) runHook(s slot, h *Hook) ([]Action, bool) {
	if p.hooking == nil {
		p.hooking = map[int32]bool{}
	}
	p.hooking[s.ordinal] = true
	state, labelled := s.pod.Labels[h.Label]
	rec := hookRecordOf(s.pod, h.Label)
	if !labelled || rec.Since.IsZero() || rec.Revision != p.hookRevision(s, h) {
		// Not started, or started for another update revision: what it
		// answered then says nothing about this one.
		return []Action{p.startHook(s, h)}, false
	}
	switch state {
	case v1alpha1.HookDone:
		return nil, true
	case v1alpha1.HookFailed:
		return nil, p.hookFails(s, h, rec, hookFailed, fmt.Sprintf("%s hook of %s failed: it is labelled %s=%s", h.Name, s.pod.Name, h.Label, state))
	case v1alpha1.HookPending:
	default:
		p.warn(ReasonInvalidHookLabel, "Pod/"+s.pod.Name, fmt.Sprintf("label %s=%q is not %s, %s or %s; the hook still waits", h.Label, state,
			v1alpha1.HookPending, v1alpha1.HookDone, v1alpha1.HookFailed))
	}
	left := rec.Since.Add(h.Timeout).Sub(p.in.Now)
	if left <= 0 {
		msg := fmt.Sprintf("%s hook of %s timed out after %s", h.Name, s.pod.Name, h.Timeout)
		if rec.LastError != "" {
			msg += fmt.Sprintf(" (%d calls; last: %s)", rec.Attempts, rec.LastError)
		}
		return nil, p.hookFails(s, h, rec, hookTimedOut, msg)
	}
	p.requeueBy(left)
	var actions []Action
	what := fmt.Sprintf("a handshake: it waits until %s is labelled %s=%s", s.pod.Name, h.Label, v1alpha1.HookDone)
	hint := fmt.Sprintf("Whatever prepares the pod labels it when done: kubectl label pod %s %s=%s --overwrite (or %s to fail the hook).", s.pod.Name, h.Label, v1alpha1.HookDone, v1alpha1.HookFailed)
	if h.HTTP != nil {
		what = fmt.Sprintf("an http call of %s", h.HTTP)
		if rec.Attempts > 0 {
			what += fmt.Sprintf(", %d failed so far (last: %s)", rec.Attempts, rec.LastError)
		}
		hint = "The hook is done when the endpoint answers 2xx."
		if due := rec.LastAttempt.Add(hookBackoff(rec.Attempts)); rec.Attempts > 0 && due.After(p.in.Now) {
			p.requeueBy(due.Sub(p.in.Now))
		} else {
			actions = append(actions, p.callHook(s, h, rec, left))
		}
	}
	policy := "Halt: after that the pod is left alone and the rollout fails"
	switch {
	case h.Proceed:
		policy = "Proceed: after that the controller goes on without it"
	case h.Member:
		policy = "Halt: after that the pod stays out of service and the rollout fails"
	}
	msg := fmt.Sprintf("%s hook of %s is %s; it times out in %s (failurePolicy %s)", h.Name, s.pod.Name, what, left.Round(time.Second), policy)
	// The status says when, not how long: it must not change by itself.
	p.hookBlock(s, h, rec, hookPending, fmt.Sprintf("%s hook of %s is %s; it times out at %s (failurePolicy %s)", h.Name, s.pod.Name, what,
		rec.Since.Add(h.Timeout).UTC().Format(time.RFC3339), policy), false)
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, msg, hint))
	return actions, false
}

// hookRevision is the revision a hook of the pod in s is run for: the
// update revision for the hooks that run before a change, the pod's own
// for a member hook.
func (p *planner) hookRevision(s slot, h *Hook) string {
	if h.Member {
		return podRevision(s.pod)
	}
	if h.Reload {
		rec, _ := configrev.ReloadOf(s.pod.Annotations)
		return rec.Revision
	}
	return p.update
}

// hookBackoff is the pause after the n-th failed call of an http hook:
// 1 s, doubling, at most 10 s.
func hookBackoff(n int32) time.Duration {
	if n <= 0 {
		return 0
	}
	return min(time.Second<<min(n-1, 4), 10*time.Second)
}

// hookFails applies a failed or timed-out hook's failure policy and
// reports whether the pod may be disturbed anyway.
func (p *planner) hookFails(s slot, h *Hook, rec v1alpha1.HookRecord, what, msg string) bool {
	if h.Proceed {
		p.warn(ReasonHookFailed, "Pod/"+s.pod.Name, msg+"; failurePolicy Proceed goes on")
		return true
	}
	msg += "; failurePolicy Halt leaves the pod alone"
	p.warn(ReasonHookFailed, "Pod/"+s.pod.Name, msg)
	p.hookBlock(s, h, rec, what, msg, true)
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, msg,
		fmt.Sprintf("Label the pod %s=%s to let it go on, or remove the label to run the hook again: kubectl label pod %s %s-", h.Label, v1alpha1.HookDone, s.pod.Name, h.Label)))
	return false
}

// hookBlock lists the pod in status.blockedBy while its hook holds it.
func (p *planner) hookBlock(s slot, h *Hook, rec v1alpha1.HookRecord, what, msg string, permanent bool) {
	p.blocks = append(p.blocks, block{listed: true, PodFailure: PodFailure{Pod: s.pod.Name, Ordinal: s.ordinal, Revision: p.hookRevision(s, h),
		Reason: hookReason(h, what), Message: msg, Permanent: permanent, Since: rec.Since}})
}

// hookReason is e.g. PreUpdateHookPending.
func hookReason(h *Hook, what string) string {
	return strings.ToUpper(h.Name[:1]) + h.Name[1:] + what
}

// startHook labels the pod Pending and records the start. The patch is
// guarded by the resourceVersion the plan read: a start planned from a
// view older than the pod (a cache that does not show this hook's start
// yet, or an actor's answer written since) fails with a conflict instead
// of labelling an answered hook Pending again, which would lose the
// answer and hold the pod until the hook's timeout.
func (p *planner) startHook(s slot, h *Hook) Action {
	rev := p.hookRevision(s, h)
	rec, _ := json.Marshal(v1alpha1.HookRecord{Since: p.in.Now.UTC().Truncate(time.Second), Revision: rev})
	meta := map[string]any{"uid": s.pod.UID, "labels": map[string]any{h.Label: v1alpha1.HookPending}, "annotations": map[string]any{h.Label: string(rec)}}
	if s.pod.ResourceVersion != "" {
		meta["resourceVersion"] = s.pod.ResourceVersion
	}
	patch, _ := json.Marshal(map[string]any{"metadata": meta})
	how := fmt.Sprintf("handshake: waits for %s=%s", h.Label, v1alpha1.HookDone)
	if h.HTTP != nil {
		how = "http: calls " + h.HTTP.String()
	}
	when := "before revision " + rev
	if h.Member {
		when = "at revision " + rev + ", before the pod returns to service"
	}
	why := fmt.Sprintf("%s hook of %s started (%s; timeout %s) %s", h.Name, s.pod.Name, how, h.Timeout, when)
	return Action{Kind: StartHook, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, EventReason: EventHookStarted, EventMessage: why,
		FailEvent: EventFailedUpdate, Reason: why}
}

// callHook makes the next call of an http hook.
func (p *planner) callHook(s slot, h *Hook, rec v1alpha1.HookRecord, left time.Duration) Action {
	call := &HookCall{Hook: *h, Record: rec, Timeout: max(min(MaxHookCall, left), time.Second),
		Request: v1alpha1.HookRequest{Hook: h.Name, Namespace: p.set.Namespace, StatefulSet: p.set.Name, Pod: s.pod.Name, PodUID: string(s.pod.UID),
			Ordinal: s.ordinal, Revision: podRevision(s.pod), UpdateRevision: p.update, Attempt: rec.Attempts + 1}}
	if h.Reload {
		reloadHookRequest(s.pod, &call.Request)
	}
	p.requeueBy(call.Timeout + time.Second)
	return Action{Kind: CallHook, Ordinal: s.ordinal, Pod: s.pod, Call: call,
		Reason: fmt.Sprintf("%s hook of %s: call %d of %s", h.Name, s.pod.Name, call.Request.Attempt, h.HTTP)}
}

// hookCleanupPass ends the hooks of pods that no longer need them: a pod
// at the update revision, inside the set's range and not asked to be
// deleted, is neither updated nor deleted, so a hook label it carries (from
// an update that was rolled back, or a scale-in that was undone) is
// removed, and a later update or scale-in runs the hook afresh; and a hook
// the set no longer has leaves no label on any of its pods.
func (p *planner) hookCleanupPass() {
	if p.ext == nil {
		return
	}
	var actions []Action
	for _, s := range p.replicas {
		if s.placeholder || isTerminating(s.pod) || p.deleted[s.ordinal] || p.changed[s.ordinal] || p.hooking[s.ordinal] {
			continue
		}
		settled := podRevision(s.pod) == p.update && s.pod.Labels[v1alpha1.DeleteRequestedLabel] != "true" && p.drainedNode(s) == ""
		var stale []string
		for _, h := range []struct {
			label  string
			hook   *Hook
			record bool // a member hook's label stays as the record of the join
		}{{v1alpha1.PreUpdateHookLabel, p.ext.PreUpdate, false}, {v1alpha1.PreDeleteHookLabel, p.ext.PreDelete, false},
			{v1alpha1.PostCreateHookLabel, p.ext.PostCreate, true}, {v1alpha1.PostUpdateHookLabel, p.ext.PostUpdate, true},
			{v1alpha1.ReloadHookLabel, p.reloadHook(), false}} {
			_, l := s.pod.Labels[h.label]
			_, a := s.pod.Annotations[h.label]
			if (l || a) && ((settled && !h.record) || h.hook == nil) {
				stale = append(stale, h.label)
			}
		}
		if p.switchoverStale(s.pod, settled) {
			stale = append(stale, v1alpha1.SwitchoverHookLabel)
		}
		if len(stale) == 0 {
			continue
		}
		drop := map[string]any{}
		for _, label := range stale {
			drop[label] = nil
		}
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uid": s.pod.UID, "labels": drop, "annotations": drop}})
		actions = append(actions, Action{Kind: EndHook, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, FailEvent: EventFailedUpdate,
			Reason: fmt.Sprintf("%s: hook labels %s are no longer needed (the pod runs the update revision %s and stays, or the set has no such hook)", s.pod.Name, strings.Join(stale, ", "), p.update)})
	}
	p.addStep(StepHooks, actions)
}

// StepHooks is the step that removes hook labels no longer needed.
const StepHooks = "hooks"
