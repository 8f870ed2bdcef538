package planner

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// switchoverGate decides for a pod about to be disrupted whether its
// switchover lets it go. The switchover concerns a pod that holds an
// exclusive role, and a pod whose switchover was started for the update
// revision and has let the role go: it is done once another Ready pod
// holds the role.
func (p *planner) switchoverGate(v *roleView, s slot) ([]Action, bool) {
	h := p.ext.Switchover
	if h == nil || s.placeholder || !isCreated(s.pod) || isTerminating(s.pod) || isFinished(s.pod) {
		return nil, true
	}
	r, holds := v.roleOf(s.pod)
	holds = holds && r.Exclusive
	if !holds {
		rec := hookRecordOf(s.pod, h.Label)
		started, ok := v.byName[rec.Role]
		_, labelled := s.pod.Labels[h.Label]
		if !labelled || rec.Since.IsZero() || rec.Revision != p.update || !ok || !started.Exclusive || p.heldElsewhere(v, started.Name, s) {
			return nil, true
		}
		r = started
	}
	return p.runSwitchover(s, r, holds)
}

// heldElsewhere reports whether a Ready pod of the set other than the
// one in s, not being deleted, holds the role.
func (p *planner) heldElsewhere(v *roleView, role string, s slot) bool {
	for _, o := range p.replicas {
		if o.ordinal != s.ordinal && o.pod.Labels[v.spec.LabelKey] == role && IsRunningAndReady(o.pod) && !isTerminating(o.pod) && !p.deleted[o.ordinal] {
			return true
		}
	}
	return false
}

// runSwitchover carries on the switchover of the pod in s, which holds
// (holds) or has just let go of the exclusive role r, and reports whether
// the failure policy lets the pod be disrupted anyway:
//  1. not started for the update revision: label the pod Pending (the
//     request, for a handshake);
//  2. Failed, or past its timeout: the failure policy (Halt holds the pod,
//     Proceed disrupts it);
//  3. otherwise an http hook is called (with the hooks' backoff) until it
//     answers 2xx, and the hook waits, Done or not, until the role label is
//     on another Ready pod and off this one.
func (p *planner) runSwitchover(s slot, r Role, holds bool) ([]Action, bool) {
	h := p.ext.Switchover
	if p.hooking == nil {
		p.hooking = map[int32]bool{}
	}
	p.hooking[s.ordinal] = true
	state, labelled := s.pod.Labels[h.Label]
	rec := hookRecordOf(s.pod, h.Label)
	if !labelled || rec.Since.IsZero() || rec.Revision != p.update {
		return []Action{p.startSwitchover(s, h, r)}, false
	}
	key := p.rolesOf().spec.LabelKey
	if state == v1alpha1.HookFailed {
		return nil, p.hookFails(s, h, rec, hookFailed, fmt.Sprintf("switchover hook of %s failed: it is labelled %s=%s, and %s=%s has not moved",
			s.pod.Name, h.Label, state, key, r.Name))
	}
	left := rec.Since.Add(h.Timeout).Sub(p.in.Now)
	if left <= 0 {
		msg := fmt.Sprintf("switchover hook of %s timed out after %s: %s=%s did not move to another Ready pod", s.pod.Name, h.Timeout, key, r.Name)
		if rec.LastError != "" {
			msg += fmt.Sprintf(" (%d calls; last: %s)", rec.Attempts, rec.LastError)
		}
		return nil, p.hookFails(s, h, rec, hookTimedOut, msg)
	}
	p.requeueBy(left)
	var actions []Action
	what := fmt.Sprintf("a handshake: %s is labelled %s=%s, which asks whatever runs the application to move %s=%s to another pod", s.pod.Name, h.Label, v1alpha1.HookPending, key, r.Name)
	if h.HTTP != nil && state != v1alpha1.HookDone {
		what = fmt.Sprintf("an http call of %s asking to move %s=%s", h.HTTP, key, r.Name)
		if rec.Attempts > 0 {
			what += fmt.Sprintf(", %d failed so far (last: %s)", rec.Attempts, rec.LastError)
		}
		if due := rec.LastAttempt.Add(hookBackoff(rec.Attempts)); rec.Attempts > 0 && due.After(p.in.Now) {
			p.requeueBy(due.Sub(p.in.Now))
		} else {
			call := p.callHook(s, h, rec, left)
			call.Call.Request.Role = r.Name
			actions = append(actions, call)
		}
	} else if state == v1alpha1.HookDone {
		what = fmt.Sprintf("taken (labelled %s=%s)", h.Label, v1alpha1.HookDone)
	}
	waitFor := fmt.Sprintf("it is done when %s=%s is on another Ready pod and off %s", key, r.Name, s.pod.Name)
	if !holds {
		waitFor = fmt.Sprintf("%s no longer holds %s=%s; it is done when another Ready pod does", s.pod.Name, key, r.Name)
	}
	policy := "Halt: after that the pod is left alone and the rollout fails"
	if h.Proceed {
		policy = "Proceed: after that the pod is disrupted anyway"
	}
	msg := fmt.Sprintf("switchover hook of %s is %s; %s; it times out in %s (failurePolicy %s)", s.pod.Name, what, waitFor, left.Round(time.Second), policy)
	p.hookBlock(s, h, rec, reasonSwitchoverPending, fmt.Sprintf("switchover hook of %s is %s; %s; it times out at %s (failurePolicy %s)", s.pod.Name, what, waitFor,
		rec.Since.Add(h.Timeout).UTC().Format(time.RFC3339), policy), false)
	p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, msg, fmt.Sprintf(
		"Whatever runs the application moves the role and relabels the pods (or a person: kubectl label pod %s %s=%s to fail the switchover).", s.pod.Name, h.Label, v1alpha1.HookFailed)))
	return actions, false
}

// startSwitchover labels the pod Pending and records the start, with the
// role it moves.
func (p *planner) startSwitchover(s slot, h *Hook, r Role) Action {
	rec, _ := json.Marshal(v1alpha1.HookRecord{Since: p.in.Now.UTC().Truncate(time.Second), Revision: p.update, Role: r.Name})
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uid": s.pod.UID,
		"labels": map[string]any{h.Label: v1alpha1.HookPending}, "annotations": map[string]any{h.Label: string(rec)}}})
	how := "handshake"
	if h.HTTP != nil {
		how = "http: calls " + h.HTTP.String()
	}
	why := fmt.Sprintf("switchover hook of %s started (%s; timeout %s): %s=%s is to move to another Ready pod before %s is disrupted for revision %s",
		s.pod.Name, how, h.Timeout, p.rolesOf().spec.LabelKey, r.Name, s.pod.Name, p.update)
	return Action{Kind: StartHook, Ordinal: s.ordinal, Pod: s.pod, Patch: patch, EventReason: EventHookStarted, EventMessage: why,
		FailEvent: EventFailedUpdate, Reason: why}
}

// switchoverStale reports whether the pod's switchover label and
// annotation are no longer needed: the set has no switchover, or the pod
// runs the update revision and stays.
func (p *planner) switchoverStale(pod *corev1.Pod, settled bool) bool {
	_, l := pod.Labels[v1alpha1.SwitchoverHookLabel]
	_, a := pod.Annotations[v1alpha1.SwitchoverHookLabel]
	return (l || a) && (settled || p.ext.Switchover == nil)
}
