package invariant

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// controllerSpecEntry is the managedFields entry of the controller's field
// manager on an extended set's main resource (its spec and metadata, not
// its status subresource), or nil.
func controllerSpecEntry(set *v1alpha1.StatefulSet) *metav1.ManagedFieldsEntry {
	if set == nil {
		return nil
	}
	for i := range set.ManagedFields {
		e := &set.ManagedFields[i]
		if e.Manager == v1alpha1.ControllerFieldManager && e.Subresource == "" {
			return e
		}
	}
	return nil
}

// judgeSpecWrite checks RuleNoSpecWrite on a new version of an extended
// set: before is the previous version (nil for the first one observed).
func (r *replay) judgeSpecWrite(ev Event, before, set *v1alpha1.StatefulSet) {
	after := controllerSpecEntry(set)
	if after == nil || (before != nil && reflect.DeepEqual(controllerSpecEntry(before), after)) {
		return
	}
	what := "metadata"
	if before != nil && before.Generation != set.Generation {
		what = "spec"
	}
	r.violate(RuleNoSpecWrite, key(set.Namespace, set.Name), ev, "%s wrote the %s of the set (%s at %s, generation %d); it may write its status only",
		v1alpha1.ControllerFieldManager, what, after.Operation, after.Time, set.Generation)
}

// heldAway returns the hold a version of an extended set is under, nil
// when none is in force: the status records a hold, for the generation it
// has observed, that the set's release annotation does not name, and
// onFailure is Pause or Rollback.
func heldAway(x *v1alpha1.StatefulSet) *v1alpha1.RolloutHold {
	if x == nil || x.Status.Hold == nil || x.Status.ObservedGeneration != x.Generation {
		return nil
	}
	if ru := x.Spec.UpdateStrategy.RollingUpdate; ru == nil || (ru.OnFailure != v1alpha1.FailurePause && ru.OnFailure != v1alpha1.FailureRollback) {
		return nil
	}
	if h := x.Status.Hold; x.Annotations[v1alpha1.ReleaseHoldAnnotation] != h.ID {
		return h
	}
	return nil
}

// heldPaused reports whether version v is under a hold whose action is
// Paused: the rules read it as paused.
func (st *setTrack) heldPaused(v *appsv1.StatefulSet) bool {
	h := heldAway(st.extOf(v))
	return h != nil && h.Action == v1alpha1.HoldPaused
}

// judgeHoldRevision checks RuleHoldRevision on a pod version whose
// revision label is new (a created pod, or one changed in place); prev is
// the version before (nil for a creation).
func (r *replay) judgeHoldRevision(ev Event, st *setTrack, prev, pod *corev1.Pod) {
	rev := pod.Labels[RevisionLabel]
	if st == nil || !st.extended() || rev == "" || (prev != nil && prev.Labels[RevisionLabel] == rev) {
		return
	}
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 {
		return
	}
	var hold *v1alpha1.RolloutHold
	for _, v := range specs {
		h := heldAway(st.extOf(v))
		if h == nil || h.FailedRevision != rev || h.Revision == rev {
			return
		}
		hold = h
	}
	verb := "created"
	if prev != nil {
		verb = "changed in place"
	}
	r.violate(RuleHoldRevision, key(pod.Namespace, pod.Name), ev, "%s at revision %s, which the hold %s (%s) keeps the set from: it runs %s",
		verb, rev, hold.ID, hold.Action, hold.Revision)
}
