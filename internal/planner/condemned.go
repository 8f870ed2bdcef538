package planner

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// retentionPass sets the owner references of condemned pods' claims before
// any of them is deleted, so that under whenScaled Delete the claim is owned
// by the pod when the pod goes and the garbage collector removes both.
func (p *planner) retentionPass() {
	units := make([][]Action, 0, len(p.condemned))
	for _, s := range p.condemned {
		fix := p.retentionUpdates(s, true, "")
		if len(fix.actions) > 0 {
			p.conflicts(fix)
		}
		units = append(units, fix.actions)
	}
	p.addUnits(StepClaimRetention, units)
}

// condemnedPass deletes pods outside the ordinal range and reports whether
// the rolling update may run. Scale-down therefore comes before updates.
// OrderedReady deletes one pod per sync, highest ordinal first, and only
// when that pod is healthy or is itself the first unavailable pod (so a
// broken pod being removed does not block its own removal). Parallel deletes
// every condemned pod that is not already terminating. An extended set also
// deletes a Failed or Succeeded pod in turn, which can never become Ready:
// upstream waits on it for ever when a lower pod is unavailable too.
func (p *planner) condemnedPass() bool {
	if len(p.condemned) == 0 {
		return true
	}
	if !p.monotonic {
		units := make([][]Action, len(p.condemned))
		for i, s := range p.condemned {
			if !isTerminating(s.pod) {
				units[i] = p.scaleDown(s)
			}
		}
		p.addUnits(StepScaleDown, units)
		return true
	}
	s, minReady, now := p.condemned[0], p.set.Spec.MinReadySeconds, p.in.Now
	switch {
	case isTerminating(s.pod):
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s,
			fmt.Sprintf("OrderedReady scale-down removes one pod at a time, highest ordinal first; %s must be gone before the next", s.pod.Name),
			"A pod held by a finalizer or on an unreachable node stays Terminating; check its finalizers and its node."))
	case p.ext != nil && isFinished(s.pod):
		p.addStep(StepScaleDown, p.scaleDown(s))
	case (!IsRunningAndReady(s.pod) || !IsAvailable(s.pod, minReady, now)) && s.pod != p.firstUnavailable():
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s,
			fmt.Sprintf("OrderedReady scale-down deletes %s only once it is Running, Ready and Available, because a lower pod is also unavailable", s.pod.Name),
			fmt.Sprintf("Fix %s or delete it by hand.", s.pod.Name)))
	default:
		p.addStep(StepScaleDown, p.scaleDown(s))
	}
	return false
}

// scaleDown deletes a condemned pod, once an extended set's preDelete
// hook is done with it.
func (p *planner) scaleDown(s slot) []Action {
	return p.hooked(s, needDelete, func() []Action {
		p.deleted[s.ordinal] = true
		return []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete,
			Reason: p.condemnedWhy(s)}}
	})
}

// firstUnavailable is the first unavailable pod in ordinal order within the
// range, a missing one included (its pod is built), else the
// lowest-ordinal unavailable condemned pod.
func (p *planner) firstUnavailable() *corev1.Pod {
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	missing, hasMissing := p.firstMissing()
	for _, s := range p.replicas {
		if hasMissing && missing < s.ordinal {
			break
		}
		if isUnavailable(s.pod, minReady, now) {
			return s.pod
		}
	}
	if hasMissing {
		return p.placeholder(missing).pod
	}
	for i := len(p.condemned) - 1; i >= 0; i-- {
		if s := p.condemned[i]; isUnavailable(s.pod, minReady, now) {
			return s.pod
		}
	}
	return nil
}
