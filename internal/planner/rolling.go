package planner

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// rollingUpdate brings the pods at or above the partition to the update
// revision, highest ordinal first or in the sorters' order (order.go). A
// set updated as with the MaxUnavailableStatefulSet gate off
// (maxUnavailableGate) gets upstream's update for that gate
// (legacyRollingUpdate); every other set gets one budgeted round
// (runRound) run by the executor of its update policy (executor.go), with
// maxUnavailable 1 when it has no rollingUpdate block, as upstream does
// with the gate on.
//
// Under OrderedReady the replica pass only lets this run when every pod is
// healthy, so the round finds no unavailable pod and maxUnavailable 1
// gives upstream's one pod at a time, highest ordinal first. An extended
// set's priority rules reorder which pods come first (outdated); an
// unreadable rule holds the update, which compilePriority has reported.
func (p *planner) rollingUpdate() {
	switch {
	case p.unordered:
	case !p.maxUnavailableGate():
		p.legacyRollingUpdate()
	default:
		p.runRound(p.executorFor())
	}
}

// maxUnavailableGate reports whether the set is updated as upstream's
// controller does with the MaxUnavailableStatefulSet gate on. An API server
// with the gate on gives a rollingUpdate block maxUnavailable 1 when it has
// none, and one with the gate off drops the field, so a block shows the
// gate. A set of type RollingUpdate written without a block shows nothing
// (no API server adds one): the gate's default in the cluster's release
// decides (Release.MaxUnavailableByDefault). The extended kind always has
// its block.
func (p *planner) maxUnavailableGate() bool {
	if ru := p.set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		return ru.MaxUnavailable != nil
	}
	return p.ext != nil || p.in.Release.MaxUnavailableByDefault()
}

// legacyRollingUpdate is upstream's rolling update with the
// MaxUnavailableStatefulSet gate off: from the highest ordinal down to the
// partition, the first old-revision pod that is not terminating is deleted,
// and the update stops there or at the first unavailable pod above it.
// Pods below the partition are neither replaced nor waited for. A pod this
// plan already deleted (a Failed one) is the one upstream deletes a second
// time, in vain; it still leaves currentReplicas.
func (p *planner) legacyRollingUpdate() {
	minReady, now := p.set.Spec.MinReadySeconds, p.in.Now
	p.eachOrdinalDown(func(ord int32, observed *slot) bool {
		if !p.abovePartition(ord) {
			return false
		}
		s := p.placeholderFor(ord, observed)
		if podRevision(s.pod) != p.update && !isTerminating(s.pod) {
			if p.deleted[s.ordinal] {
				p.currentDeletes++
				return false
			}
			p.addStep(StepRollingUpdate, p.rollingDelete(s, ""))
			return false
		}
		if isUnavailable(s.pod, minReady, now) {
			if !s.placeholder {
				p.plan.Waits = append(p.plan.Waits, *p.waitOn(s, fmt.Sprintf(
					"RollingUpdate (no maxUnavailable): pods are replaced from the highest ordinal down, each once the pods above it are available; %s is not", s.pod.Name),
					p.budgetHint(s)))
			}
			return false
		}
		return true
	})
}

// comesBackUpdated reports whether deleting the pod in s now brings it
// back at the update revision. Without a rollingUpdate block a recreated
// pod's revision follows status.currentReplicas (placeholder), which every
// rolling delete lowers by one: pods replaced from the top come back
// updated, but a lower one deleted out of turn comes back at the current
// revision, still unavailable, and would be deleted for nothing again and
// again. Such a pod is not deleted for free; it waits its turn.
func (p *planner) comesBackUpdated(s slot, counted int32) bool {
	if p.set.Spec.UpdateStrategy.RollingUpdate != nil {
		return true
	}
	left := int64(counted) - int64(p.currentDeletes) - 1
	return int64(s.ordinal) >= int64(p.start)+left
}

// currentCount is status.currentReplicas before this plan's rolling
// deletes: the pods at the current revision.
func (p *planner) currentCount() int32 {
	var st appsv1.StatefulSetStatus
	for _, pod := range p.observed() {
		p.count(&st, pod)
	}
	return st.CurrentReplicas
}

// outdated returns the pods the rolling update should replace, highest
// ordinal first, or by weight first for an extended set with priority
// rules: observed, at or above the partition, not at the update revision,
// not terminating and not already deleted by this plan.
func (p *planner) outdated() []slot {
	var out []slot
	for i := len(p.replicas) - 1; i >= 0 && p.partitionGoesOn(p.replicas[i].ordinal); i-- {
		s := p.replicas[i]
		if p.abovePartition(s.ordinal) && !isTerminating(s.pod) && !p.deleted[s.ordinal] && !p.changed[s.ordinal] && podRevision(s.pod) != p.update {
			out = append(out, s)
		}
	}
	return p.prioritized(out)
}

// rollingDelete deletes an outdated pod. status.currentReplicas drops by
// one for every pod the update deletes, at whatever old revision, as
// upstream counts it: with a pod at a third revision the count is then
// lower than the pods at the current revision (status never shows it below
// zero, where upstream's write would be refused).
func (p *planner) rollingDelete(s slot, why string) []Action {
	reason := fmt.Sprintf("rolling update: %s at %s, update revision %s", s.pod.Name, podRevision(s.pod), p.update)
	if why != "" {
		reason = fmt.Sprintf("rolling update: %s at %s is %s; update revision %s", s.pod.Name, podRevision(s.pod), why, p.update)
	}
	return p.updateDelete(s, reason)
}

// updateDelete deletes an outdated pod for the update, once an extended
// set's preUpdate and preDelete hooks are done with it (hooks.go).
func (p *planner) updateDelete(s slot, reason string) []Action {
	return p.hooked(s, needUpdate|needDelete, func() []Action {
		p.deleted[s.ordinal] = true
		p.currentDeletes++
		return []Action{{Kind: DeletePod, Ordinal: s.ordinal, Pod: s.pod, EventReason: EventSuccessfulDelete, FailEvent: EventFailedDelete, Reason: reason}}
	})
}

// maxUnavailable is rollingUpdate.maxUnavailable scaled to spec.replicas
// (ScaleMaxUnavailable); 1 without one.
func (p *planner) maxUnavailable() (int, error) {
	ru := p.set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1, nil
	}
	return ScaleMaxUnavailable(ru.MaxUnavailable, Replicas(p.set))
}

// ScaleMaxUnavailable is a maxUnavailable (an int or a percentage) scaled
// to replicas, rounding a percentage down (as upstream does, although the
// API doc says up), and never less than 1 so a rollout can always start.
// Every maxUnavailable of both kinds is scaled here; a value that cannot
// be read is an error, which each caller reports with what it does
// instead.
func ScaleMaxUnavailable(v *intstr.IntOrString, replicas int32) (int, error) {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, int(replicas), false)
	if err != nil {
		return 0, fmt.Errorf("invalid maxUnavailable %q: %w", v.String(), err)
	}
	return max(n, 1), nil
}

// rollingBudget is what every rolling update spends: maxUnavailable,
// and the pods already counted against it (the unavailable ones and those
// this plan deletes on request). A maxUnavailable that cannot be read
// holds the update (ok is false) and is reported here, as a Warning.
func (p *planner) rollingBudget() (maxUnavailable, unavailable int, ok bool) {
	maxUnavailable, err := p.maxUnavailable()
	if err != nil && p.ext.invalid(FieldRollingMaxUnavailable) {
		return 0, 0, false // reported with the spec (reportInvalid)
	}
	if err != nil {
		p.warn(ReasonInvalidMaxUnavailable, "StatefulSet/"+p.set.Name, err.Error()+"; the rolling update does not proceed")
		return 0, 0, false
	}
	return maxUnavailable, p.unavailableCount() + p.requestedDeletes, true
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
		if isUnavailable(s.pod, p.set.Spec.MinReadySeconds, p.in.Now) {
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
