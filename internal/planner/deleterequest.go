package planner

import (
	"fmt"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// StepDeleteRequested is the step of the deletes users ask for with
// v1alpha1.DeleteRequestedLabel.
const StepDeleteRequested = "delete requested"

// deleteRequestedPass deletes the pods of an extended set whose
// DeleteRequestedLabel is "true", highest ordinal first, as far as a round
// of moves admits them (gates.go: maxUnavailable, a topology's room per
// domain, the quorum); the replica pass of a later sync creates each
// again, without the label. A pod that is already unavailable costs
// nothing, as in the rolling update. Under OrderedReady the replica pass
// lets this run only when every pod is healthy, so the pods go one at a
// time with maxUnavailable 1. The budget left is what the rolling update
// gets. apps/v1 sets ignore the label.
func (p *planner) deleteRequestedPass() {
	if p.ext == nil {
		return
	}
	r, ok := p.moveRound()
	if !ok {
		return
	}
	var actions []Action
	for i := len(p.replicas) - 1; i >= 0; i-- {
		s := p.replicas[i]
		if isTerminating(s.pod) || p.deleted[s.ordinal] || s.pod.Labels[v1alpha1.DeleteRequestedLabel] != "true" {
			continue
		}
		if !p.admitMove(r, s, fmt.Sprintf("%s=true asks for %s to be replaced;", v1alpha1.DeleteRequestedLabel, s.pod.Name)) {
			continue
		}
		actions = append(actions, p.hooked(s, needDelete, func() []Action {
			p.deleted[s.ordinal] = true
			return []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete,
				Reason: fmt.Sprintf("%s has %s=true: delete it so that it is created again", s.pod.Name, v1alpha1.DeleteRequestedLabel)}}
		})...)
	}
	p.addStep(StepDeleteRequested, actions)
}

// moveRound starts a round of moves (disruptions outside the rollout):
// maxUnavailable less the pods unavailable and those this plan already
// took. A maxUnavailable that cannot be read holds it; the rolling update
// reports it.
func (p *planner) moveRound() (*round, bool) {
	maxUnavailable, err := p.maxUnavailable()
	if err != nil {
		return nil, false
	}
	return p.newRound(move, maxUnavailable, p.unavailableCount()+p.requestedDeletes, nil)
}

// admitMove reports whether the pod in s may be taken out of service by a
// move now: at once when it is unavailable already (it costs nothing),
// otherwise when every gate of the round admits it, and then it keeps its
// slot even while its hooks hold it (requestedDeletes). A refusal is the
// plan's wait, what prefixes the refusing gate's words.
func (p *planner) admitMove(r *round, s slot, what string) bool {
	if !IsAvailable(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) || p.inPlaceBusy(s.pod) {
		return true
	}
	ok, why := r.admitOrSay(s)
	if ok {
		p.requestedDeletes++
		return true
	}
	if why != "" {
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, what+" "+why, ""))
	}
	return false
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
