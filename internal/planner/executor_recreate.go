package planner

// recreateExecutor is upstream 1.37's budgeted update, for every set
// that does not update in place:
//  1. old-revision pods that are already unavailable are deleted first
//     and cost nothing, since deleting them makes nothing less available
//     (the fix for upstream #137409, where such a pod used up the budget
//     and the rollout stalled behind it);
//  2. then available old-revision pods are deleted while the round's
//     gates admit them (maxUnavailable counts every unavailable pod,
//     including those below the partition).
//
// The replica pass of a later sync recreates each at the update revision.
type recreateExecutor struct {
	// counted is status.currentReplicas before the round's deletes
	// (comesBackUpdated).
	counted int32
}

func (*recreateExecutor) busy(*planner) []slot { return nil }

// candidates are the outdated pods, the unavailable ones first: each
// pass keeps the order the sorters gave.
func (x *recreateExecutor) candidates(p *planner) ([]slot, bool) {
	x.counted = p.currentCount()
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	outdated := p.outdated()
	pending := make([]slot, 0, len(outdated))
	for _, s := range outdated {
		if !IsAvailable(s.pod, minReady, now) {
			pending = append(pending, s)
		}
	}
	for _, s := range outdated {
		if IsAvailable(s.pod, minReady, now) {
			pending = append(pending, s)
		}
	}
	return pending, true
}

// step deletes an unavailable pod for free when it comes back updated,
// and an available one once the gates admit it.
func (x *recreateExecutor) step(p *planner, r *round, s slot) ([]Action, bool) {
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	if !IsAvailable(s.pod, minReady, now) {
		if p.comesBackUpdated(s, x.counted) {
			return p.rollingDelete(s, "already "+stateOf(s.pod, minReady, now)), false
		}
		return nil, false
	}
	if p.admit(r, outOfService, s) {
		return p.updateAvailable(s), false
	}
	return nil, false
}
