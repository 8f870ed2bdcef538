package planner

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// waitOn describes the pod in s as something the plan waits for.
func (p *planner) waitOn(s slot, policy, hint string) *Wait {
	w := &Wait{
		Ordinal: s.ordinal, Pod: s.pod.Name, Revision: podRevision(s.pod),
		State:  stateOf(s.pod, p.set.Spec.MinReadySeconds, p.in.Now),
		Policy: policy, Hint: hint,
	}
	if !s.placeholder {
		w.Since = sinceOf(s.pod)
		if !isCreated(s.pod) {
			w.State = "Created, no phase yet"
		}
	}
	return w
}

// replicaWait explains why OrderedReady stopped at this pod.
func (p *planner) replicaWait(s slot) *Wait {
	name := s.pod.Name
	policy := fmt.Sprintf("OrderedReady: pods after %s are created, updated or deleted only once it is Running and Ready", name)
	if m := p.set.Spec.MinReadySeconds; m > 0 {
		policy = fmt.Sprintf("OrderedReady: pods after %s are created, updated or deleted only once it has been Ready for %ds", name, m)
	}
	if isTerminating(s.pod) {
		policy = fmt.Sprintf("OrderedReady: %s must finish terminating before it is recreated and before any later pod changes", name)
	}
	return p.waitOn(s, policy, p.replicaHint(s))
}

// replicaHint tells the user how to unblock an OrderedReady set. The first
// case is upstream's forced-rollback trap (#67250): a pod at an old revision
// that never becomes Ready stops the replica pass, so the rolling update that
// would replace it never runs, not even after the template is fixed.
func (p *planner) replicaHint(s slot) string {
	pod, name, rev := s.pod, s.pod.Name, podRevision(s.pod)
	switch {
	case isTerminating(pod):
		return "A pod held by a finalizer or on an unreachable node stays Terminating; check its finalizers and its node."
	case IsRunningAndReady(pod) || !isCreated(pod) || p.changed[s.ordinal]:
		return ""
	case rev != p.update && p.rollingReplaces(s.ordinal) && p.healing():
		return fmt.Sprintf("%s runs revision %s, not the update revision %s, and is not Ready: self-healing deletes it, and it comes back at %s. Nothing to do.", name, rev, p.update, p.update)
	case rev != p.update && p.rollingReplaces(s.ordinal):
		return fmt.Sprintf("%s runs revision %s, not the update revision %s, and is not Ready, so OrderedReady never reaches the rolling update that would replace it (upstream #67250). Delete the pod to recreate it at %s.", name, rev, p.update, p.update)
	case rev != p.update && p.onDelete():
		return fmt.Sprintf("%s runs revision %s and is not Ready; delete it to recreate it at %s (OnDelete).", name, rev, p.update)
	case rev == p.update && p.current != p.update && p.ext != nil:
		return p.extendedNewRevisionHint(name, rev)
	case rev == p.update && p.current != p.update:
		return fmt.Sprintf("%s runs the new revision %s and is not Ready. If the new template is broken, fix it or roll back (kubectl rollout undo), then delete %s: OrderedReady does not replace a pod that never becomes Ready (forced rollback).", name, rev, name)
	case pod.Status.Phase == corev1.PodPending:
		return fmt.Sprintf("Check the events of %s (kubectl describe pod): it may be unschedulable or waiting for its volumes.", name)
	}
	return ""
}

// extendedNewRevisionHint is the hint for a pod of the new revision that
// is not Ready in an extended set: kubectl cannot roll the kind back, and
// with self-healing the broken pod is replaced once the template is fixed.
func (p *planner) extendedNewRevisionHint(name, rev string) string {
	then := fmt.Sprintf("then delete %s: OrderedReady does not replace a pod that never becomes Ready", name)
	if p.ext.SelfHealing {
		then = fmt.Sprintf("and self-healing then replaces %s", name)
	}
	return fmt.Sprintf("%s runs the new revision %s and is not Ready. If the new template is broken, fix it or roll back (ordinal rollout undo osts/%s), %s.", name, rev, p.set.Name, then)
}

// rollingReplaces reports whether the rolling update would replace an
// old-revision pod at ordinal.
func (p *planner) rollingReplaces(ordinal int32) bool {
	return !p.onDelete() && p.abovePartition(ordinal)
}

// abovePartition reports whether ordinal is at or above the partition,
// where the rolling update replaces pods; none is while the set is paused,
// whose reserved ordinals may put pods past start + replicas.
func (p *planner) abovePartition(ordinal int32) bool {
	if p.countPartition() {
		return !p.paused() && !p.kept[ordinal]
	}
	return !p.paused() && int64(ordinal) >= int64(p.start)+int64(p.partition())
}

func (p *planner) onDelete() bool {
	return p.set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType
}

// onDeleteWaits lists pods left at an old revision: under OnDelete only the
// user replaces them.
func (p *planner) onDeleteWaits() {
	for _, s := range p.replicas {
		if isTerminating(s.pod) || podRevision(s.pod) == p.update || p.changed[s.ordinal] {
			continue
		}
		p.plan.Waits = append(p.plan.Waits, *p.waitOn(s,
			"OnDelete: a pod moves to the update revision only when it is deleted",
			fmt.Sprintf("Delete %s to recreate it at revision %s.", s.pod.Name, p.update)))
	}
}

// requeueAfter is how long until the first Ready pod becomes Available, plus
// a second so that the sync lands after the boundary, not on it. Without it
// nothing would trigger the sync that counts the pod as available.
func (p *planner) requeueAfter() time.Duration {
	m := p.set.Spec.MinReadySeconds
	if m <= 0 {
		return 0
	}
	var next time.Duration
	for _, pod := range p.observed() {
		c := readyCondition(pod)
		if c == nil || c.LastTransitionTime.IsZero() || IsAvailable(pod, m, p.in.Now) {
			continue
		}
		if d := availableAt(c, m).Sub(p.in.Now) + time.Second; next == 0 || d < next {
			next = d
		}
	}
	return next
}
