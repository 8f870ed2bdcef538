package invariant

import (
	"math"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// podTrack follows one pod name (one identity) across pod objects.
type podTrack struct {
	live    *corev1.Pod // nil while no object exists
	history timeline[*corev1.Pod]
	judged  map[types.UID]bool // deletions already judged
	// evictJudged are the evictions already judged (evictions.go).
	evictJudged map[types.UID]bool
}

// RevisionLabel is the pod label naming its ControllerRevision.
const RevisionLabel = appsv1.ControllerRevisionHashLabelKey

func (r *replay) applyPod(ev Event, pod *corev1.Pod) {
	k := key(pod.Namespace, pod.Name)
	pt := r.pods[k]
	if pt == nil {
		pt = &podTrack{judged: map[types.UID]bool{}, evictJudged: map[types.UID]bool{}}
		if !ev.Relisted {
			// Observed from its creation: absent before.
			pt.history.add(time.Time{}, nil)
		}
		r.pods[k] = pt
	}
	prev := pt.live
	st, ord := r.setOf(pod, false)
	if st != nil && !owned(pod, st.uid) {
		st = nil
	}
	if st != nil {
		st.ordinals[ord] = true
	}
	if ev.Type == watch.Deleted {
		if prev != nil && prev.UID == pod.UID {
			r.judgeForceDeletion(ev, st, prev, pod)
			r.judgeDeletion(ev, st, ord, prev, pod)
			pt.live = nil
			pt.history.add(ev.Time, nil)
		}
		return
	}
	if prev == nil || prev.UID != pod.UID {
		if prev != nil {
			r.violate(RuleUniqueIdentity, k, ev, "pod %s (uid %s) created while pod uid %s of that name was never observed deleted", pod.Name, pod.UID, prev.UID)
		}
		if st != nil && !ev.Relisted {
			r.judgeCreation(ev, st, ord, pod)
		}
		if !ev.Relisted {
			r.judgeReserved(ev, pod)
		}
		prev = nil
	}
	if prev != nil && !ev.Relisted {
		r.judgeInPlace(ev, st, ord, prev, pod)
	}
	if st != nil && !ev.Relisted {
		r.judgeOverrideTemplate(ev, st, ord, prev, pod)
	}
	if prev != nil && !ev.Relisted {
		r.judgeRoleProbeWrite(ev, st, prev, pod)
	}
	if !ev.Relisted {
		r.judgeHoldRevision(ev, st, prev, pod)
		r.judgeConfigCopies(ev, st, pod)
	}
	if pod.DeletionTimestamp != nil && (prev == nil || prev.DeletionTimestamp == nil) {
		r.judgeForceDeletion(ev, st, prev, pod)
		r.judgeDeletion(ev, st, ord, prev, pod)
	}
	pt.live = pod
	pt.history.add(ev.Time, pod)
}

func (r *replay) podHistory(ns, setName string, ord int32) timeline[*corev1.Pod] {
	if pt := r.pods[key(ns, podName(setName, ord))]; pt != nil {
		return pt.history
	}
	return nil
}

func podName(setName string, ord int32) string { return setName + "-" + itoa(ord) }

// judgeCreation checks RuleOrdinalRange, RuleOrderedCreate and
// RulePartitionCreate for a newly created pod.
func (r *replay) judgeCreation(ev Event, st *setTrack, ord int32, pod *corev1.Pod) {
	k := key(pod.Namespace, pod.Name)
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 {
		return
	}
	if !anySpec(specs, func(s *appsv1.StatefulSet) bool { return r.inRange(s, ord) }) {
		start, end := span(specs[len(specs)-1])
		r.violate(RuleOrdinalRange, k, ev, "created outside the ordinal range [%d, %d)", start, end)
	}
	set := specs[len(specs)-1]
	if orderedReady(set) {
		if j, ok := r.unhealthyPredecessor(ev, set, ord); ok {
			r.violate(RuleOrderedCreate, k, ev, "OrderedReady: created while predecessor %s was not Running, Ready and Available within the last %s",
				podName(set.Name, j), r.opts.Window)
		}
	}
	r.judgePartitionCreate(ev, st, specs, ord, pod)
	r.judgeRecreateCreate(ev, st, specs, ord, pod)
	r.judgeMemberJoinCreate(ev, st, ord)
	r.judgeScaleUp(ev, st, specs, ord, pod)
}

func (r *replay) judgePartitionCreate(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	if !allSpecs(specs, rollingUpdate) || int64(ord) >= st.minFirstUpdated(specs) {
		return
	}
	rev := pod.Labels[RevisionLabel]
	current := map[string]bool{}
	for _, s := range specs {
		if s.Status.CurrentRevision != "" {
			current[s.Status.CurrentRevision] = true
		}
	}
	if len(current) == 0 || current[rev] {
		return
	}
	r.violate(RulePartitionCreate, key(pod.Namespace, pod.Name), ev,
		"created below partition %s at revision %q, not at the current revision (%v)", partitionWords(st, specs), rev, keys(current))
}

// judgeDeletion checks the ordering rules for the first deletion of a pod
// object; before is its previous version (nil if unknown).
func (r *replay) judgeDeletion(ev Event, st *setTrack, ord int32, before, pod *corev1.Pod) {
	r.judgeEviction(ev, st, ord, before, pod)
	if st == nil || ev.Relisted || r.external[pod.UID] || finished(before) || finished(pod) ||
		deletedByCluster(before) || deletedByCluster(pod) {
		return
	}
	pt := r.pods[key(pod.Namespace, pod.Name)]
	if pt.judged[pod.UID] {
		return
	}
	pt.judged[pod.UID] = true
	if forcedAt(ev, before, pod) && r.replacesLostPods(st) {
		// A node-failure replacement, judged by the force-deletion rules
		// (nodes.go), not a rolling-update or scale-down decision.
		return
	}
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 || st.gone {
		return
	}
	r.judgeHookDelete(ev, st, specs, ord, before, pod)
	r.judgeBudgets(ev, st, specs, ord, before, pod)
	condemned := anySpec(specs, func(s *appsv1.StatefulSet) bool { return !r.inRange(s, ord) })
	if before == nil || before.Status.Phase != "" {
		r.judgeRoles(ev, st, specs, ord, pod, condemned)
	}
	if condemned {
		r.judgeScaleDown(ev, st, specs, ord, pod)
		return
	}
	r.judgeMemberJoinDisruption(ev, st, ord, "deleted")
	r.judgeGroup(ev, st, specs, pod)
	r.judgeUpdateDeletion(ev, st, specs, ord, pod)
}

func (r *replay) judgeScaleDown(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	set := specs[len(specs)-1]
	if !orderedReady(set) || r.recreateDelete(st, specs, pod) {
		return
	}
	from := ev.Time.Add(-r.opts.Window)
	for k := range st.ordinals {
		// An extended set's reserved ordinal is condemned while ordinals
		// above it stay: only condemned successors go first.
		if k <= ord || (st.extended() && r.inRange(set, k)) {
			continue
		}
		absent := r.podHistory(pod.Namespace, set.Name, k).heldWithin(from, ev.Time, func(p *corev1.Pod, _ time.Time) bool { return p == nil })
		if !absent {
			r.awaitRecreate(ev, st, specs, pod, "OrderedReady scale-down deleted %s while its successor %s still existed", pod.Name, podName(set.Name, k))
			return
		}
	}
}

func (r *replay) judgeUpdateDeletion(ev Event, st *setTrack, specs []*appsv1.StatefulSet, ord int32, pod *corev1.Pod) {
	k := key(pod.Namespace, pod.Name)
	if allSpecs(specs, func(s *appsv1.StatefulSet) bool {
		return s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType
	}) {
		r.violate(RuleOnDeleteDelete, k, ev, "OnDelete: the controller deleted an unfinished in-range pod")
		return
	}
	if st.extended() && (r.judgeOverrideDelete(ev, specs, ord, pod) || r.judgeExtendedDeletion(ev, st, specs, ord, pod)) {
		return
	}
	if st.extended() {
		r.judgePriority(ev, st, specs, ord, pod)
	}
	if !allSpecs(specs, rollingUpdate) {
		return
	}
	if int64(ord) < st.minFirstUpdated(specs) {
		r.violate(RulePartitionDelete, k, ev, "deleted an unfinished pod below partition %s", partitionWords(st, specs))
		return
	}
	set := specs[len(specs)-1]
	if !orderedReady(set) || !allSpecs(specs, oneAtATime) {
		return
	}
	if r.selfHealDelete(ev, st, specs, pod) {
		r.judgeHealOrder(ev, st, set, ord, pod)
		return
	}
	// The controller may have decided on any version of the window (its
	// cache lags): a deletion decided before a scale-up and observed after
	// it has no successor at the new ordinals to wait for.
	var late int32
	for i := len(specs) - 1; i >= 0; i-- {
		j, ok := r.unhealthySuccessor(ev, pod.Namespace, specs[i], ord)
		if !ok {
			return
		}
		if i == len(specs)-1 {
			late = j
		}
	}
	r.violate(RuleOrderedUpdate, k, ev, "OrderedReady rolling update deleted %s while successor %s was not healthy within the last %s",
		pod.Name, podName(set.Name, late), r.opts.Window)
}

// unhealthySuccessor returns the first of version v's ordinals above ord
// whose pod (in namespace ns) was not healthy at any instant of the window
// before ev.
func (r *replay) unhealthySuccessor(ev Event, ns string, v *appsv1.StatefulSet, ord int32) (int32, bool) {
	from := ev.Time.Add(-r.opts.Window)
	for _, j := range r.setOrdinals(v) {
		if j <= ord {
			continue
		}
		ok := r.podHistory(ns, v.Name, j).heldWithin(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
			return r.healthyAt(p, v.Spec.MinReadySeconds, at)
		})
		if !ok {
			return j, true
		}
	}
	return 0, false
}

func finished(p *corev1.Pod) bool {
	return p != nil && (p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded)
}

func anySpec(specs []*appsv1.StatefulSet, pred func(*appsv1.StatefulSet) bool) bool {
	for _, s := range specs {
		if pred(s) {
			return true
		}
	}
	return false
}

func allSpecs(specs []*appsv1.StatefulSet, pred func(*appsv1.StatefulSet) bool) bool {
	for _, s := range specs {
		if !pred(s) {
			return false
		}
	}
	return true
}

// partitionWords is the lowest partition of the versions, in words.
func partitionWords(st *setTrack, specs []*appsv1.StatefulSet) string {
	if p := st.minPartition(specs); p != math.MaxInt32 {
		return itoa(p)
	}
	return "(paused: every ordinal)"
}
