package planner

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// rollingUpdate deletes old-revision pods at or above the partition, highest
// ordinal first; the replica pass of a later sync recreates them at the
// update revision. There is one algorithm for every maxUnavailable:
//  1. old-revision pods that are already unavailable are deleted first and
//     cost nothing, since deleting them makes nothing less available (the
//     fix for upstream #137409, where such a pod used up the budget and the
//     rollout stalled behind it);
//  2. then available old-revision pods are deleted while fewer than
//     maxUnavailable pods of the range are unavailable, counting every
//     unavailable pod, including those below the partition.
//
// Under OrderedReady the replica pass only lets this run when every pod is
// healthy, so step 1 finds nothing and maxUnavailable 1 gives upstream's
// one pod at a time, highest ordinal first.
func (p *planner) rollingUpdate() {
	maxUnavailable, err := p.maxUnavailable()
	if err != nil {
		p.warn(ReasonInvalidMaxUnavailable, "StatefulSet/"+p.set.Name, err.Error()+"; the rolling update does not proceed")
		return
	}
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	unavailable := 0
	for _, s := range p.replicas {
		if isUnavailable(s.pod, minReady, now) {
			unavailable++
		}
	}
	var actions []Action
	for _, s := range p.outdated() {
		if !IsAvailable(s.pod, minReady, now) {
			actions = append(actions, p.rollingDelete(s, "already "+stateOf(s.pod, minReady, now)))
		}
	}
	budget := maxUnavailable - unavailable
	for _, s := range p.outdated() {
		if budget > 0 && IsAvailable(s.pod, minReady, now) {
			actions = append(actions, p.rollingDelete(s, ""))
			budget--
		}
	}
	p.addStep(StepRollingUpdate, false, actions)
	if len(actions) == 0 {
		p.budgetWaits(maxUnavailable, unavailable)
	}
}

// outdated returns the pods the rolling update should replace, highest
// ordinal first: observed, at or above the partition, not at the update
// revision, not terminating and not already deleted by this plan.
func (p *planner) outdated() []slot {
	var out []slot
	for i := len(p.replicas) - 1; i >= 0 && int64(i) >= int64(Partition(p.set)); i-- {
		s := p.replicas[i]
		if !s.placeholder && !isTerminating(s.pod) && !p.deleted[s.ordinal] && podRevision(s.pod) != p.update {
			out = append(out, s)
		}
	}
	return out
}

// rollingDelete deletes an outdated pod. status.currentReplicas drops by
// one when the pod was at the current revision. Upstream decrements for any
// old revision, which can drive the count negative when a pod runs a third
// revision.
func (p *planner) rollingDelete(s slot, why string) Action {
	p.deleted[s.ordinal] = true
	if podRevision(s.pod) == p.current {
		p.currentDeletes++
	}
	reason := fmt.Sprintf("rolling update: %s at %s, update revision %s", s.pod.Name, podRevision(s.pod), p.update)
	if why != "" {
		reason = fmt.Sprintf("rolling update: %s at %s is %s; update revision %s", s.pod.Name, podRevision(s.pod), why, p.update)
	}
	return Action{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, Reason: reason}
}

// maxUnavailable is rollingUpdate.maxUnavailable scaled to spec.replicas,
// rounding a percentage down (as upstream does, although the API doc says
// up), and never less than 1 so a rollout can always start.
func (p *planner) maxUnavailable() (int, error) {
	ru := p.set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1, nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, int(Replicas(p.set)), false)
	if err != nil {
		return 0, fmt.Errorf("invalid maxUnavailable %q: %w", ru.MaxUnavailable.String(), err)
	}
	return max(n, 1), nil
}

// budgetWaits explains a rolling update that has old-revision pods left but
// may not delete any: the unavailable pods are what it waits for.
func (p *planner) budgetWaits(maxUnavailable, unavailable int) {
	pending := p.outdated()
	if len(pending) == 0 {
		return
	}
	policy := fmt.Sprintf("RollingUpdate maxUnavailable %d: %d unavailable now, so %s (old revision) is replaced only when a pod becomes available",
		maxUnavailable, unavailable, pending[0].pod.Name)
	for _, s := range p.replicas {
		if !s.placeholder && isUnavailable(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) {
			p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, policy, p.budgetHint(s)))
		}
	}
}

func (p *planner) budgetHint(s slot) string {
	switch {
	case isTerminating(s.pod) || IsRunningAndReady(s.pod):
		return ""
	case podRevision(s.pod) == p.update && p.current != p.update:
		return fmt.Sprintf("%s runs the new revision %s and is not Ready; if the new template is broken, fix it or roll back (kubectl rollout undo).", s.pod.Name, p.update)
	case !p.rollingReplaces(s.ordinal):
		return fmt.Sprintf("%s is below the partition, so the rolling update leaves it alone, but it still counts against maxUnavailable.", s.pod.Name)
	}
	return ""
}
