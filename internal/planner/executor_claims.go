package planner

import "fmt"

// claimsExecutor is the rolling update of a set whose claims follow its
// templates (volumeClaimUpdateStrategy InPlace). Pods are taken highest
// ordinal first, or in the sorters' order, and for each:
//  1. its claims are patched to the update revision's templates;
//  2. the update waits until their resize and modification have finished;
//     the pod stays Ready meanwhile but takes one of the maxUnavailable
//     slots;
//  3. a pod whose pod template and claim templates' names did not change
//     only has its revision label moved; any other is updated by pods,
//     the executor of its podUpdatePolicy.
//
// A grow that a StorageClass does not allow stops the update before any
// claim is patched; an infeasible resize or modification stops it at its
// pod. Pods that are already unavailable take no slot.
type claimsExecutor struct {
	pods executor
	// storage is each candidate's claims against the templates, by
	// ordinal, in the round's order.
	storage map[int32]podStorage
	round   []podStorage
}

// busy works out the round's pods and their claims; those being resized
// hold their slots (storageBusy).
func (x *claimsExecutor) busy(p *planner) []slot {
	x.round = p.storageRound()
	x.storage = make(map[int32]podStorage, len(x.round))
	for _, st := range x.round {
		x.storage[st.slot.ordinal] = st
	}
	return p.storageBusy(x.round)
}

// candidates reports the shrinks the update will not make, and holds the
// round when a StorageClass refuses a grow.
func (x *claimsExecutor) candidates(p *planner) ([]slot, bool) {
	p.reportShrinks(x.round)
	if p.expansionRefused(x.round) {
		return nil, false
	}
	pending := make([]slot, len(x.round))
	for i, st := range x.round {
		pending[i] = st.slot
	}
	return pending, true
}

// step decides for one pod of the round; a failed claim halts the
// rollout at its pod. A claim's resize or modification of an available
// pod goes through the round's gates (the pod stays in service, so the
// quorum lets it by); so does the pod's own update.
func (x *claimsExecutor) step(p *planner, r *round, s slot) (actions []Action, stop bool) {
	st := x.storage[s.ordinal]
	free := !p.available(s.pod)
	switch {
	case len(st.patches()) > 0 && (free || !st.disruptive() || st.holdsSlot() || p.admit(r, resize, s)):
		return p.claimPatches(st), false
	case len(st.patches()) > 0:
		return nil, false // its turn comes when a slot frees
	case st.failure() != nil:
		p.storageBlock(s, *st.failure())
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf("InPlace claim update: %s is updated once its claims are; %s", s.pod.Name, st.failure().Message),
			"Lower the template's storage request to a size the storage accepts (KEP-1790 lets a claim's request come down to its capacity), or fix the storage."))
		return nil, true
	case st.progress() != "":
		p.storageWait(s, st.progress())
		p.storageBlock(s, PodFailure{Reason: ReasonResizePending, Message: st.progress(), Since: p.ext.Last.LastProgress})
		return nil, false
	case podRevision(s.pod) == p.update:
		return nil, false
	case p.onlyStorage(s):
		return []Action{p.moveRevision(s)}, false
	case p.changed[s.ordinal]:
		return nil, false // its update in place is under way (inPlacePass)
	}
	return x.pods.step(p, r, s)
}
