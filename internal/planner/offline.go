package planner

import (
	"fmt"
	"slices"
)

// Offline members (spec.offlineOrdinals) are ordinals of the set whose
// pods are stopped:
//  1. an offline ordinal stays one of the set's ordinals as replicas
//     counts them (no other ordinal gets a pod in its place), but it gets
//     no pod: the layout leaves it out (withoutOffline), so a pod there is
//     removed as in a scale-down (OrderedReady: once the others are
//     healthy; preDelete runs first) and none is created;
//  2. its claims are kept whatever whenScaled says: the retention pass
//     treats them as the claims of an in-range pod, so no owner reference
//     hands them to the garbage collector with the pod (a reference to
//     the pod is removed before the pod is deleted);
//  3. an offline member is neither missing nor unavailable: the rolling
//     update's budget, the Available condition and the rollout's
//     completion count the members that are not offline (wanted);
//  4. removing the ordinal from the list puts it back in the layout, and
//     the replica pass creates the pod again, on the same claims.

// offline reports whether ord is one of the extended set's offline
// ordinals.
func (p *planner) offline(ord int32) bool {
	return p.ext != nil && Reserved(p.ext.Offline, ord)
}

// withoutOffline is l without the extended set's offline ordinals: the
// same last ordinal at most, with the offline ones among l's ordinals as
// gaps beside the reserved ones.
func (p *planner) withoutOffline(l Layout) Layout {
	return l.Without(p.offlineRanges())
}

func (p *planner) offlineRanges() []OrdinalRange {
	if p.ext == nil {
		return nil
	}
	return p.ext.Offline
}

// Without is l without the ordinals the ranges hold: its ordinals that
// none of them holds, in the same places.
func (l Layout) Without(ranges []OrdinalRange) Layout {
	last, ok := l.Last()
	if !ok || len(ranges) == 0 {
		return l
	}
	var gaps []OrdinalRange
	var removed int64
	for _, r := range mergeRanges(ranges, l.start) {
		if r.Low > last {
			break
		}
		r.High = min(r.High, last)
		gaps = append(gaps, r)
		removed += int64(l.Below(r.High)) - int64(l.Below(r.Low))
		if _, in := l.Index(r.High); in {
			removed++
		}
	}
	if len(gaps) == 0 {
		return l
	}
	return NewLayout(l.start, l.n-int32(removed), append(slices.Clone(l.gaps), gaps...))
}

// wanted is how many pods the set should have: spec.replicas, less the
// offline members among its ordinals. It is spec.replicas for apps/v1.
func (p *planner) wanted() int32 {
	if len(p.offlineRanges()) == 0 {
		return Replicas(p.set)
	}
	return p.layout.Len()
}

// offlineWhy says why the pod of an offline member is removed.
func (p *planner) offlineWhy(s slot) string {
	return fmt.Sprintf("offline member: ordinal %d is in offlineOrdinals (%s), so %s is stopped; its claims are kept whatever whenScaled says, and removing the ordinal from the list creates the pod again on them",
		s.ordinal, rangesWords(p.ext.Offline), s.pod.Name)
}
