package planner

import "fmt"

// selfHeal is the extended kind's answer to upstream #67250: an
// OrderedReady rollout stops at the first pod that is not healthy, and
// when that pod runs an old revision and never becomes Ready, upstream
// waits for it forever, even after the template is fixed. With
// SelfHealing the pod is deleted, and the replica pass of a later sync
// recreates it at the update revision. It costs no availability: the pod
// is not Ready. Only pods the rolling update would replace are touched (at
// or above the partition, not while paused), never a Ready pod and never
// one at the update revision.
func (p *planner) selfHeal(s slot) []Action {
	if !p.healing() || s.placeholder || !isCreated(s.pod) || isTerminating(s.pod) || p.deleted[s.ordinal] || p.changed[s.ordinal] ||
		IsRunningAndReady(s.pod) || podRevision(s.pod) == p.update || !p.rollingReplaces(s.ordinal) || (p.hasOverrides() && p.unchanged(s)) {
		return nil
	}
	return p.updateDelete(s, fmt.Sprintf("self-healing: %s runs old revision %s and is %s; it is replaced at the update revision %s",
		s.pod.Name, podRevision(s.pod), stateOf(s.pod, p.set.Spec.MinReadySeconds, p.in.Now), p.update))
}

// healing reports whether self-healing applies to this set now.
func (p *planner) healing() bool {
	return p.ext != nil && p.ext.SelfHealing && !p.paused() && !p.ext.Recreate && !p.onDelete()
}
