package invariant

import (
	"encoding/json"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// evicted reports whether the pod was taken by the Eviction API, whoever
// asked: the API server marks it DisruptionTarget (reason
// EvictionByEvictionAPI) before it deletes it.
func evicted(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == "EvictionByEvictionAPI" {
			return true
		}
	}
	return false
}

// deletedByCluster reports whether the pod was deleted by one of the
// cluster's own controllers, which mark it DisruptionTarget before they
// delete it: the taint-eviction controller (reason DeletionByTaintManager)
// or the pod garbage collector (DeletionByPodGC). The controller never
// writes that condition. The taint-eviction controller of 1.37 finds the
// pod it evicts by name, so a pod the set controller recreated under that
// name after the first one went (on another node) can be the one it
// deletes: a real cluster's race, not the set controller's deletion.
func deletedByCluster(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue &&
			(c.Reason == "DeletionByTaintManager" || c.Reason == "DeletionByPodGC") {
			return true
		}
	}
	return false
}

// keepsBudget reports whether version v is an extended set with
// spec.disruptionBudget.
func (st *setTrack) keepsBudget(v *appsv1.StatefulSet) bool {
	x := st.extOf(v)
	return x != nil && x.Spec.DisruptionBudget != nil
}

// judgeEviction checks RuleQuorumFloor and RuleSwitchoverEvict for the
// first deletion of a pod of an extended set that the Eviction API made,
// whoever asked for it: a drain, a person, or the controller itself. A
// deletion recorded as the test's (ExternalDelete) is judged too when it
// is an eviction: that is the outside disruption the set's budget is
// for. It is judged when the set keeps a budget of its own, or, without
// one, when the set had to answer an eviction request for the pod
// (setAnswered): then the request went through the set, not around it.
func (r *replay) judgeEviction(ev Event, st *setTrack, ord int32, before, pod *corev1.Pod) {
	if !st.extended() || ev.Relisted || finished(before) || finished(pod) || !evicted(pod) && !evicted(before) {
		return
	}
	pt := r.pods[key(pod.Namespace, pod.Name)]
	if pt.evictJudged[pod.UID] {
		return
	}
	pt.evictJudged[pod.UID] = true
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 || st.gone || anySpec(specs, func(s *appsv1.StatefulSet) bool { return !r.inRange(s, ord) }) {
		return
	}
	if !allSpecs(specs, st.keepsBudget) && !r.setAnswered(ev, st, specs, pod) {
		return
	}
	r.judgeSwitchoverEvict(ev, st, specs, pod)
	if !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return hasQuorum(st.extOf(s)) }) {
		return
	}
	if size, available, broken := r.quorumBroken(ev, st, specs, ord, pod); broken {
		r.violate(RuleQuorumFloor, key(pod.Namespace, pod.Name), ev,
			"evicted %s, an Available quorum member, while at most %d of a quorum of at least %d members were Available, counting the members down for any cause: fewer than a majority are left",
			pod.Name, available, size)
	}
}

// judgeSwitchoverEvict checks RuleSwitchoverEvict: an eviction of a pod
// whose every state in the window held a role exclusive in every version
// and carried a switchover under way (its label, not Failed, and not past
// a timeout that failurePolicy Proceed goes on after).
func (r *replay) judgeSwitchoverEvict(ev Event, st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod) {
	if !allSpecs(specs, func(s *appsv1.StatefulSet) bool {
		x := st.extOf(s)
		return x.Spec.Lifecycle != nil && x.Spec.Lifecycle.Switchover != nil
	}) {
		return
	}
	hist := r.pods[key(pod.Namespace, pod.Name)].history
	if hist.heldThroughout(ev.Time.Add(-r.opts.Window), ev.Time, func(p *corev1.Pod, _ time.Time) bool {
		if p == nil || p.UID != pod.UID {
			return false
		}
		if state, ok := p.Labels[v1alpha1.SwitchoverHookLabel]; !ok || state == v1alpha1.HookFailed {
			return false
		}
		if r.switchoverLapsed(st, specs, p, ev.Time) {
			return false
		}
		for _, s := range specs {
			if role, ok := roleOf(st.extOf(s), p); !ok || !role.Exclusive {
				return false
			}
		}
		return true
	}) {
		r.violate(RuleSwitchoverEvict, key(pod.Namespace, pod.Name), ev,
			"evicted %s while it held an exclusive role with its switchover under way all along: the role had not moved yet", pod.Name)
	}
}

// setAnswered reports whether an eviction request for pod went through
// its set in the window before ev, so that whatever evicted it the set
// answers for the quorum and the switchover without a budget of its own:
// with evictions and nodes watched, an Eviction made the controller its
// active responder, and none of the reasons the set may decline a
// request held at any instant of the window (the checker re-derives them
// from the specs, nodes and volumes it saw, not from the responder's
// words): nodeDrainPolicy Ignore or a paused rollout in some version,
// the pod's node not Ready, or a claim of the pod on a volume pinned to
// one host.
func (r *replay) setAnswered(ev Event, st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod) bool {
	if !r.opts.Evictions || !r.opts.Nodes || !r.evictionAsked(ev, pod.UID) {
		return false
	}
	if anySpec(specs, func(s *appsv1.StatefulSet) bool {
		x := st.extOf(s)
		ru := x.Spec.UpdateStrategy.RollingUpdate
		return x.Spec.NodeDrainPolicy == v1alpha1.NodeDrainIgnore || ru != nil && ru.Paused
	}) {
		return false
	}
	return r.nodeReadyThroughout(pod.Spec.NodeName, ev.Time.Add(-r.opts.Window), ev.Time) && !r.onPinnedVolume(pod)
}

// nodeReadyThroughout reports whether node was Ready in every state its
// track holds for [from, to], the one in force at from included.
func (r *replay) nodeReadyThroughout(node string, from, to time.Time) bool {
	nt := r.nodes[node]
	if node == "" || nt == nil {
		return false
	}
	if n := nt.stateAt(from, false); n == nil || !nodeReady(n) {
		return false
	}
	for _, s := range nt.history {
		if s.t.After(from) && !s.t.After(to) && (s.state == nil || !nodeReady(s.state)) {
			return false
		}
	}
	return true
}

// onPinnedVolume reports whether a claim pod mounts is bound to a volume
// that only one host can reach, or is not known to be bound to one that
// is not: such a pod could start on no other node.
func (r *replay) onPinnedVolume(pod *corev1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		ct := r.claims[key(pod.Namespace, v.PersistentVolumeClaim.ClaimName)]
		if ct == nil || ct.live == nil || ct.live.Spec.VolumeName == "" {
			return true
		}
		pv := r.volumes[ct.live.Spec.VolumeName]
		if pv == nil || volumeHost(pv) != "" {
			return true
		}
	}
	return false
}

// switchoverLapsed reports whether, at instant at, the switchover p
// carries had run past the timeout of a version whose failurePolicy is
// Proceed: from then on that version lets the pod go, the set's own
// eviction and its budget's allowance alike. The start is the hook
// record's (the controller's clock, on this machine); a record that
// cannot be read lapses nothing.
func (r *replay) switchoverLapsed(st *setTrack, specs []*appsv1.StatefulSet, p *corev1.Pod, at time.Time) bool {
	var rec v1alpha1.HookRecord
	if json.Unmarshal([]byte(p.Annotations[v1alpha1.SwitchoverHookLabel]), &rec) != nil || rec.Since.IsZero() {
		return false
	}
	for _, s := range specs {
		x := st.extOf(s)
		if x == nil || x.Spec.Lifecycle == nil || x.Spec.Lifecycle.Switchover == nil {
			continue
		}
		h := x.Spec.Lifecycle.Switchover
		if h.FailurePolicy != v1alpha1.HookProceed {
			continue
		}
		timeout := time.Duration(h.TimeoutSeconds) * time.Second
		if timeout == 0 {
			timeout = defaultHookTimeout
		}
		if !at.Before(rec.Since.Add(timeout)) {
			return true
		}
	}
	return false
}

// defaultHookTimeout is a hook's timeout when timeoutSeconds is unset
// (the field's documented default).
const defaultHookTimeout = 300 * time.Second
