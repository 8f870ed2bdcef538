package invariant

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// UserWrite records that obj, as a create, update or patch returned it, was
// written by the caller rather than the controller. A caller that passes
// an extended set's creation through UserWrite promises to pass every
// later write of its spec too; only for such sets are RuleRollbackOnce and
// RuleRollbackLoop judged, since they must tell the user's changes of
// spec.template from the controller's.
func (c *Checker) UserWrite(obj metav1.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rv := ParseRV(obj.GetResourceVersion()); rv != 0 {
		c.userRVs[rv] = true
	}
	if obj.GetGeneration() <= 1 {
		c.userSets[obj.GetUID()] = true
	}
}

// rollbackTrack follows one extended set's template changes and automatic
// rollbacks.
type rollbackTrack struct {
	// userChanges counts template changes by the user (or of unknown
	// origin: relisted versions) so far.
	userChanges int
	// controllerChanges counts the controller's template changes since the
	// last user change.
	controllerChanges int
	// seen holds each distinct status.rollback observed, in order, with
	// userChanges as it was then.
	seen []rollbackSeen
}

type rollbackSeen struct {
	record      v1alpha1.RollbackRecord
	userChanges int
}

// judgeRollbacks checks RuleRollbackOnce and RuleRollbackLoop on a new
// version of an extended set whose writes the caller records; before is
// the previous version (nil for the first one observed).
func (r *replay) judgeRollbacks(ev Event, st *setTrack, before, set *v1alpha1.StatefulSet) {
	if !r.userSets[set.UID] {
		return
	}
	rb := &st.rollbacks
	switch {
	case before == nil:
		rb.userChanges++
		rb.controllerChanges = 0
	case apiequality.Semantic.DeepEqual(before.Spec.Template, set.Spec.Template):
	case r.userRVs[ev.RV] || ev.Relisted:
		rb.userChanges++
		rb.controllerChanges = 0
	default:
		rb.controllerChanges++
		if rb.controllerChanges == 2 {
			r.violate(RuleRollbackOnce, key(set.Namespace, set.Name), ev,
				"the controller changed spec.template a second time with no change of it by the user in between (status.rollback: %s)", rollbackWords(set.Status.Rollback))
		}
	}
	if rec := set.Status.Rollback; rec != nil && !rb.recorded(*rec) {
		r.judgeRollbackLoop(ev, set, *rec)
		rb.seen = append(rb.seen, rollbackSeen{record: *rec, userChanges: rb.userChanges})
	}
}

// judgeRollbackLoop checks a newly recorded rollback against every earlier
// one with no user template change since.
func (r *replay) judgeRollbackLoop(ev Event, set *v1alpha1.StatefulSet, rec v1alpha1.RollbackRecord) {
	rb := &r.sets[setKey(KindExtendedSet, set.Namespace, set.Name)].rollbacks
	for _, earlier := range rb.seen {
		if earlier.userChanges != rb.userChanges {
			continue
		}
		e, k := earlier.record, key(set.Namespace, set.Name)
		switch {
		case rec.To == e.From:
			r.violate(RuleRollbackLoop, k, ev, "rolled back to %s, which the earlier rollback %s rolled away from, with no template change by the user in between",
				rec.To, rollbackWords(&e))
			return
		case rec.From == e.To:
			r.violate(RuleRollbackLoop, k, ev, "rolled back from %s, the revision the earlier rollback %s restored, with no template change by the user in between (a failed rollback must pause)",
				rec.From, rollbackWords(&e))
			return
		}
	}
}

// recorded reports whether rec was seen before (records are told apart by
// from, to and time).
func (rb *rollbackTrack) recorded(rec v1alpha1.RollbackRecord) bool {
	for _, s := range rb.seen {
		if s.record.From == rec.From && s.record.To == rec.To && s.record.Time.Equal(&rec.Time) {
			return true
		}
	}
	return false
}

func rollbackWords(rec *v1alpha1.RollbackRecord) string {
	if rec == nil {
		return "none"
	}
	return rec.From + " -> " + rec.To + " at " + rec.Time.UTC().Format("15:04:05")
}

// userWrites is the part of a Checker that UserWrite fills.
type userWrites struct {
	userRVs  map[uint64]bool
	userSets map[types.UID]bool
}

func (u userWrites) clone() userWrites {
	out := userWrites{userRVs: make(map[uint64]bool, len(u.userRVs)), userSets: make(map[types.UID]bool, len(u.userSets))}
	for k, v := range u.userRVs {
		out.userRVs[k] = v
	}
	for k, v := range u.userSets {
		out.userSets[k] = v
	}
	return out
}
