package invariant

import appsv1 "k8s.io/api/apps/v1"

// ownerClaim is a claim-owner violation waiting for the set's next
// version: if the checker's watch of the set broke and that version came
// from a relist, the change that took the ordinal out of range may have
// been committed before the claim's write, unseen.
type ownerClaim struct {
	st      *setTrack
	ord     int32
	ev      Event
	object  string
	message string
}

// holdClaimOwner keeps a claim-owner violation until st's next version.
func (r *replay) holdClaimOwner(st *setTrack, ord int32, ev Event, object, message string) {
	r.ownerClaims = append(r.ownerClaims, ownerClaim{st: st, ord: ord, ev: ev, object: object, message: message})
}

// settleClaimOwner judges st's waiting claim-owner violations at its next
// version set: a relisted version with the ordinal out of range excuses
// them (its change is of unknown time, possibly before the claim's
// write); any other version confirms them.
func (r *replay) settleClaimOwner(st *setTrack, set *appsv1.StatefulSet, relisted bool) {
	kept := r.ownerClaims[:0]
	for _, c := range r.ownerClaims {
		switch {
		case c.st != st:
			kept = append(kept, c)
		case relisted && !r.inRange(set, c.ord):
		default:
			r.violate(RuleClaimOwner, c.object, c.ev, "%s", c.message)
		}
	}
	r.ownerClaims = kept
}

// closeClaimOwner confirms the violations still waiting when the history
// ends.
func (r *replay) closeClaimOwner() {
	for _, c := range r.ownerClaims {
		r.violate(RuleClaimOwner, c.object, c.ev, "%s", c.message)
	}
	r.ownerClaims = nil
}
