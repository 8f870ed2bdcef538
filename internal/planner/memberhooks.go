package planner

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Member join: spec.lifecycle.postCreate and postUpdate hold a pod out of
// service after the controller created it, or changed it in place, until
// something outside the controller says the member has caught up. The pod
// carries the controller's readiness gate (addGate), whose condition the
// controller sets True only once the hook is done, so that meanwhile:
//  1. the pod is not Ready, and so not in its Services' endpoints;
//  2. it counts as unavailable: under OrderedReady the replica pass does
//     not go past it, and the rolling update's maxUnavailable budget
//     counts it, so the next pod is not created or disturbed before this
//     one has joined;
//  3. the hook starts when the pod's containers are Ready (a member that
//     is not running cannot join), runs as preUpdate's does (handshake,
//     http or service; timeout; failurePolicy), and its label stays on
//     the pod once Done, as the record that this revision of the pod
//     joined.

// memberHooks reports whether the set has a member hook that needs the
// readiness gate on the pods it creates: postCreate (postUpdate runs
// after an update in place, whose pods have the gate anyway).
func (p *planner) memberHooks() bool {
	return p.ext != nil && p.ext.PostCreate != nil
}

// memberHook is the hook that holds the gated pod in s before its gate
// goes True: postUpdate when its spec came from an update in place (its
// in-place record names the revision it runs), postCreate otherwise; nil
// when the set has no such hook.
func (p *planner) memberHook(s slot) *Hook {
	if rec := recordOf(s.pod); rec.Revision != "" && rec.Revision == podRevision(s.pod) {
		return p.ext.PostUpdate
	}
	return p.ext.PostCreate
}

// memberJoin returns the pod in s to service (its gate True) once its
// member hook is done, and otherwise what carries the hook on. The hook
// waits for the pod's containers to be Ready before it starts.
func (p *planner) memberJoin(s slot) []Action {
	h := p.memberHook(s)
	if h == nil {
		return []Action{p.setGate(s, corev1.ConditionTrue, "the pod runs its template")}
	}
	if _, started := s.pod.Labels[h.Label]; !started && !containersReady(s.pod) {
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf(
			"%s hook of %s starts once its containers are Ready; until the hook is done the pod stays out of service (readiness gate %s) and counts as unavailable",
			h.Name, s.pod.Name, v1alpha1.InPlaceReadinessGate), ""))
		return nil
	}
	if actions, done := p.runHook(s, h); !done {
		return actions
	}
	return []Action{p.setGate(s, corev1.ConditionTrue, h.Name+" hook done")}
}

// containersReady reports the pod's ContainersReady condition True.
func containersReady(pod *corev1.Pod) bool {
	c := podCondition(pod, corev1.ContainersReady)
	return c != nil && c.Status == corev1.ConditionTrue
}
