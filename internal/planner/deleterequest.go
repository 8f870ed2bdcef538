package planner

import (
	"fmt"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// StepDeleteRequested is the step of the deletes users ask for with
// v1alpha1.DeleteRequestedLabel.
const StepDeleteRequested = "delete requested"

// deleteRequestedPass deletes the pods of an extended set whose
// DeleteRequestedLabel is "true", highest ordinal first, while fewer than
// maxUnavailable of the set's pods are unavailable; the replica pass of a
// later sync creates each again, without the label. A pod that is already
// unavailable costs nothing, as in the rolling update. Under OrderedReady
// the replica pass lets this run only when every pod is healthy, so the
// pods go one at a time with maxUnavailable 1. The budget left is what the
// rolling update gets. apps/v1 sets ignore the label.
func (p *planner) deleteRequestedPass() {
	if p.ext == nil {
		return
	}
	maxUnavailable, err := p.maxUnavailable()
	if err != nil {
		return // the rolling update reports it
	}
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	unavailable := p.unavailableCount()
	var actions []Action
	for i := len(p.replicas) - 1; i >= 0; i-- {
		s := p.replicas[i]
		if isTerminating(s.pod) || p.deleted[s.ordinal] || s.pod.Labels[v1alpha1.DeleteRequestedLabel] != "true" {
			continue
		}
		free := !IsAvailable(s.pod, minReady, now) || p.inPlaceBusy(s.pod)
		if !free && unavailable+p.requestedDeletes >= maxUnavailable {
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf(
				"%s=true asks for %s to be replaced; maxUnavailable %d is used up, so it waits until a pod becomes available", v1alpha1.DeleteRequestedLabel, s.pod.Name, maxUnavailable), ""))
			continue
		}
		if !free && !p.quorumTake(s) {
			continue // quorumTake explains the wait
		}
		if !free {
			p.requestedDeletes++ // a pod its preDelete hook holds keeps its slot
		}
		actions = append(actions, p.hooked(s, needDelete, func() []Action {
			p.deleted[s.ordinal] = true
			return []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete,
				Reason: fmt.Sprintf("%s has %s=true: delete it so that it is created again", s.pod.Name, v1alpha1.DeleteRequestedLabel)}}
		})...)
	}
	p.addStep(StepDeleteRequested, actions)
}

// unavailableCount is how many of the set's pods, created or not, are
// unavailable.
func (p *planner) unavailableCount() int {
	n := p.missing()
	for _, s := range p.replicas {
		if isUnavailable(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) || p.inPlaceBusy(s.pod) {
			n++
		}
	}
	return n
}
