package invariant

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// claimTrack follows one claim name.
type claimTrack struct {
	live   *corev1.PersistentVolumeClaim
	judged map[types.UID]bool
	// resizingSince is when the live claim started asking for more storage
	// than it has; zero while it does not.
	resizingSince time.Time
}

func (r *replay) applyClaim(ev Event, claim *corev1.PersistentVolumeClaim) {
	k := key(claim.Namespace, claim.Name)
	ct := r.claims[k]
	if ct == nil {
		ct = &claimTrack{judged: map[types.UID]bool{}}
		r.claims[k] = ct
	}
	prev := ct.live
	if prev != nil && prev.UID != claim.UID {
		prev = nil
	}
	st, ord := r.setOf(claim, true)
	if prev != nil && prev.Spec.VolumeName != "" && claim.Spec.VolumeName != prev.Spec.VolumeName {
		r.violate(RuleClaimVolume, k, ev, "claim moved from volume %q to %q", prev.Spec.VolumeName, claim.Spec.VolumeName)
	}
	if now, before := claimCapacity(claim), claimCapacity(prev); prev != nil && now.Cmp(before) < 0 {
		r.violate(RuleClaimShrunk, k, ev, "claim capacity went down from %s to %s", before.String(), now.String())
	}
	if ev.Type != watch.Deleted {
		r.trackResize(ev, ct, prev, claim)
	}
	if st != nil && !ev.Relisted {
		r.judgeClaimOwner(ev, st, ord, prev, claim)
	}
	deleting := ev.Type == watch.Deleted || claim.DeletionTimestamp != nil
	if st != nil && deleting && !ev.Relisted && !ct.judged[claim.UID] {
		ct.judged[claim.UID] = true
		if !r.judgeOfflineClaim(ev, st, ord, claim, "deleted") {
			r.judgeClaimDeletion(ev, st, prev, claim)
		}
	}
	if ev.Type == watch.Deleted {
		ct.live = nil
		return
	}
	ct.live = claim
}

// judgeClaimOwner checks RuleClaimOwner when a claim gains a Pod owner.
func (r *replay) judgeClaimOwner(ev Event, st *setTrack, ord int32, prev, claim *corev1.PersistentVolumeClaim) {
	for _, ref := range claim.OwnerReferences {
		if ref.Kind != "Pod" || (prev != nil && hasOwner(prev, ref.UID)) {
			continue
		}
		if r.judgeOfflineClaim(ev, st, ord, claim, "given an owner reference to pod "+ref.Name) {
			continue
		}
		specs := r.specsWithin(st, ev.Time)
		if len(specs) > 0 && !anySpec(specs, func(s *appsv1.StatefulSet) bool { return !r.inRange(s, ord) }) {
			r.holdClaimOwner(st, ord, ev, key(claim.Namespace, claim.Name),
				sprintf("claim got owner reference to pod %s while ordinal %d was in range", ref.Name, ord))
		}
	}
}

// judgeClaimDeletion checks RuleClaimDeleted.
func (r *replay) judgeClaimDeletion(ev Event, st *setTrack, prev, claim *corev1.PersistentVolumeClaim) {
	if r.external[claim.UID] {
		return
	}
	refs := claim.OwnerReferences
	if prev != nil {
		refs = append(append([]metav1.OwnerReference(nil), refs...), prev.OwnerReferences...)
	}
	whenScaled, whenDeleted := false, false
	for _, s := range st.history {
		if p := s.state.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
			whenScaled = whenScaled || p.WhenScaled == appsv1.DeletePersistentVolumeClaimRetentionPolicyType
			whenDeleted = whenDeleted || p.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType
		}
	}
	lost, why := r.claimOfLostNode(ev, st, prev, claim)
	if lost {
		return
	}
	for _, ref := range refs {
		if ref.Kind == "Pod" && whenScaled {
			return
		}
		if ref.Kind == "StatefulSet" && ref.UID == st.uid && whenDeleted && st.gone {
			return
		}
	}
	r.violate(RuleClaimDeleted, key(claim.Namespace, claim.Name), ev,
		"claim deleted although the retention policy (whenScaled Delete: %t, whenDeleted Delete: %t) does not delete it (owner references %s)%s",
		whenScaled, whenDeleted, ownerWords(refs), why)
}

func hasOwner(obj metav1.Object, uid types.UID) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

func ownerWords(refs []metav1.OwnerReference) string {
	if len(refs) == 0 {
		return "none"
	}
	out := ""
	for i, ref := range refs {
		if i > 0 {
			out += ", "
		}
		out += ref.Kind + "/" + ref.Name
	}
	return out
}

// applyRevision checks RuleLiveRevision on a revision's deletion.
func (r *replay) applyRevision(ev Event, rev *appsv1.ControllerRevision) {
	k := key(rev.Namespace, rev.Name)
	deleting := ev.Type == watch.Deleted || rev.DeletionTimestamp != nil
	if ev.Type == watch.Deleted {
		delete(r.revs, k)
	} else {
		r.revs[k] = rev
	}
	if !deleting || ev.Relisted {
		return
	}
	ref := metav1.GetControllerOf(rev)
	if ref == nil || ref.Kind != "StatefulSet" {
		return
	}
	st := r.setByOwner(rev.Namespace, ref)
	if st == nil || st.uid != ref.UID || st.gone || st.cur == nil {
		return
	}
	if st.cur.Status.CurrentRevision == rev.Name || st.cur.Status.UpdateRevision == rev.Name {
		r.violate(RuleLiveRevision, k, ev, "deleted while it is %s's current or update revision", ref.Name)
		return
	}
	for ord := range st.ordinals {
		pt := r.pods[key(rev.Namespace, podName(ref.Name, ord))]
		if pt != nil && pt.live != nil && pt.live.Labels[RevisionLabel] == rev.Name {
			r.violate(RuleLiveRevision, k, ev, "deleted while pod %s still carries it", pt.live.Name)
			return
		}
	}
}

func itoa(n int32) string { return strconv.FormatInt(int64(n), 10) }

// keys are m's keys in order.
func keys[K cmp.Ordered](m map[K]bool) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// claimCapacity is the storage a claim reports having, zero before it is
// bound.
func claimCapacity(claim *corev1.PersistentVolumeClaim) resource.Quantity {
	if claim == nil {
		return resource.Quantity{}
	}
	return claim.Status.Capacity[corev1.ResourceStorage]
}
