package planner

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// status computes the set's status from the observed pods, in range and
// condemned, as upstream's computeReplicaStatus does: terminating pods
// still count as replicas and as ready, but not as current or updated.
// Pods the plan is about to create or delete are counted as observed,
// except that rolling deletions of current-revision pods leave
// currentReplicas at once.
func (p *planner) status() appsv1.StatefulSetStatus {
	st := appsv1.StatefulSetStatus{
		ObservedGeneration: p.set.Generation,
		CurrentRevision:    p.current,
		UpdateRevision:     p.update,
		CollisionCount:     ptr.To(p.in.CollisionCount),
	}
	for _, c := range p.set.Status.Conditions {
		st.Conditions = append(st.Conditions, *c.DeepCopy())
	}
	for _, pod := range p.observed() {
		p.count(&st, pod)
	}
	st.CurrentReplicas = max(st.CurrentReplicas-p.currentDeletes, 0)
	p.recreateConditions(&st, p.promote(&st))
	return st
}

func (p *planner) count(st *appsv1.StatefulSetStatus, pod *corev1.Pod) {
	if !isCreated(pod) {
		return
	}
	st.Replicas++
	if IsRunningAndReady(pod) {
		st.ReadyReplicas++
		if IsAvailable(pod, p.set.Spec.MinReadySeconds, p.in.Now) {
			st.AvailableReplicas++
		}
	}
	if isTerminating(pod) {
		return
	}
	if rev := podRevision(pod); rev != "" {
		if rev == p.current {
			st.CurrentReplicas++
		}
		if rev == p.update {
			st.UpdatedReplicas++
		}
	}
}

// promote makes the update revision current once every wanted pod runs it
// and is ready and available, and reports whether it did. It applies to
// every update strategy, as upstream's does from 1.37 (1.36 and earlier
// left OnDelete sets unpromoted, #73492), and unlike upstream it requires
// availability (#136831), so currentRevision never claims a rollout that
// minReadySeconds has not yet confirmed.
func (p *planner) promote(st *appsv1.StatefulSetStatus) bool {
	want := p.wanted()
	if st.UpdatedReplicas == want && st.ReadyReplicas == want && st.Replicas == want && st.AvailableReplicas == want {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
		return true
	}
	return false
}

// observed returns the pods that exist: those in range and the condemned.
func (p *planner) observed() []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, len(p.replicas)+len(p.condemned))
	for _, s := range p.replicas {
		pods = append(pods, s.pod)
	}
	for _, s := range p.condemned {
		pods = append(pods, s.pod)
	}
	return pods
}
