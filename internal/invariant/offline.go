package invariant

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// OfflineOrdinals reads an extended set's spec.offlineOrdinals as
// ReservedOrdinals reads spec.reserveOrdinals.
func OfflineOrdinals(set *v1alpha1.StatefulSet) []v1alpha1.OrdinalRange {
	var out []v1alpha1.OrdinalRange
	for _, entry := range set.Spec.OfflineOrdinals {
		if rg, ok := reserveEntry(entry); ok {
			out = append(out, rg)
		}
	}
	return out
}

// withoutOffline is ordinals without those an offline range holds: an
// offline member stays one of the ordinals replicas counts, but wants no
// pod.
func withoutOffline(ordinals []int32, offline []v1alpha1.OrdinalRange) []int32 {
	if len(offline) == 0 {
		return ordinals
	}
	return slices.DeleteFunc(ordinals, func(ord int32) bool { return reserves(offline, ord) })
}

// wantedOf is how many pods an extended set wants: its ordinals (with the
// reserved ones skipped) less the offline ones among them.
func wantedOf(set *v1alpha1.StatefulSet) int32 {
	offline := OfflineOrdinals(set)
	if len(offline) == 0 {
		return replicasOf(set)
	}
	view := ExtendedView(set)
	return int32(len(withoutOffline(Ordinals(view, ReservedOrdinals(set)), offline)))
}

// judgeOfflineClaim checks RuleOfflineClaims for a claim of ordinal ord
// that is deleted or given a pod owner (what): a violation when every
// version of the set within the window lists ord offline. It reports
// whether the rule applied, so that the general claim rules do not
// judge the same claim again.
func (r *replay) judgeOfflineClaim(ev Event, st *setTrack, ord int32, claim *corev1.PersistentVolumeClaim, what string) bool {
	if !st.extended() || st.gone || r.external[claim.UID] {
		return false
	}
	specs := r.specsWithin(st, ev.Time)
	if len(specs) == 0 || !allSpecs(specs, func(s *appsv1.StatefulSet) bool { return reserves(r.offline[s], ord) }) {
		return false
	}
	r.violate(RuleOfflineClaims, key(claim.Namespace, claim.Name), ev, "claim %s of offline ordinal %d %s", claim.Name, ord, what)
	return true
}
