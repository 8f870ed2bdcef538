package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// resizing reports whether a claim asks for more storage than it has: a
// resize started and not finished.
func resizing(claim *corev1.PersistentVolumeClaim) bool {
	if claim == nil || claim.Status.Phase != corev1.ClaimBound {
		return false
	}
	capacity := claimCapacity(claim)
	return requestOf(claim).Cmp(capacity) > 0
}

// trackResize keeps since when the claim has been resizing, and judges
// RuleClaimBudget when a resize starts: the claim's request rose above
// its capacity.
func (r *replay) trackResize(ev Event, ct *claimTrack, prev, claim *corev1.PersistentVolumeClaim) {
	if !resizing(claim) {
		ct.resizingSince = time.Time{}
		return
	}
	started := prev == nil || !resizing(prev) || requestOf(claim).Cmp(*requestOf(prev)) > 0
	if ct.resizingSince.IsZero() {
		ct.resizingSince = ev.Time
	}
	if started && prev != nil && !ev.Relisted {
		r.judgeResizeStart(ev, claim)
	}
}

func requestOf(claim *corev1.PersistentVolumeClaim) *resource.Quantity {
	q := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	return &q
}

// judgeResizeStart checks RuleClaimBudget for a resize started on a claim
// of an extended InPlace set whose pod was Available throughout the
// window.
func (r *replay) judgeResizeStart(ev Event, claim *corev1.PersistentVolumeClaim) {
	st, ord := r.setOf(claim, true)
	if st == nil || st.ext == nil {
		return
	}
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 || !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return r.inPlaceClaims(st, s) && r.inRange(s, ord) }) {
		return
	}
	if !r.overBudget(ev, st, ord, specs, func(s *appsv1.StatefulSet) int { return r.busyThroughout(ev, st, s, ord) }) {
		return
	}
	set := specs[len(specs)-1]
	r.violate(RuleClaimBudget, key(claim.Namespace, claim.Name), ev,
		"started resizing the claim of ordinal %d, Available all along, while %d other ordinals were unavailable or resizing all along (maxUnavailable %d)",
		ord, r.busyThroughout(ev, st, set, ord), maxUnavailableOf(set))
}

// overBudget reports whether ordinal ord, Available throughout the
// window, was taken out of service while every version of specs had at
// least its maxUnavailable other ordinals taken (as taken counts them for
// that version): the budget rules' common test.
func (r *replay) overBudget(ev Event, st *setTrack, ord int32, specs []*appsv1.StatefulSet, taken func(*appsv1.StatefulSet) int) bool {
	from := ev.Time.Add(-r.opts.Window)
	minReady := specs[len(specs)-1].Spec.MinReadySeconds
	if !r.podHistory(st.ns, st.name, ord).heldThroughout(from, ev.Time, func(p *corev1.Pod, at time.Time) bool {
		return r.healthyAt(p, minReady, at)
	}) {
		return false
	}
	for _, s := range specs {
		if taken(s) < maxUnavailableOf(s) {
			return false
		}
	}
	return true
}

// inPlaceClaims reports whether version v of extended set st brings its
// claims to its templates in place.
func (r *replay) inPlaceClaims(st *setTrack, v *appsv1.StatefulSet) bool {
	x := st.ext[v]
	return x != nil && x.Spec.VolumeClaimUpdateStrategy.Type == v1alpha1.InPlaceVolumeClaimUpdateStrategyType &&
		v.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType
}

// busyThroughout counts the ordinals of v's range other than ord that
// were unavailable throughout the window, or had a claim resizing
// throughout it: a lower bound on the slots the controller saw taken.
func (r *replay) busyThroughout(ev Event, st *setTrack, v *appsv1.StatefulSet, ord int32) int {
	from := ev.Time.Add(-r.opts.Window)
	resizingOrds := map[int32]bool{}
	for _, ct := range r.claims {
		if ct.live == nil || ct.resizingSince.IsZero() || ct.resizingSince.After(from) {
			continue
		}
		if cst, o := r.setOf(ct.live, true); cst == st {
			resizingOrds[o] = true
		}
	}
	return r.takenThroughout(ev, v, ord, resizingOrds)
}
