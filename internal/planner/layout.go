package planner

import (
	"cmp"
	"math"
	"slices"
)

// Layout is where a set's pods go: the first Len ordinals from a start
// that no reserved range holds, as SetOrdinals lists them. It answers
// questions about them without listing them, so what it costs follows
// the reserved ranges, never spec.replicas: a set of a million replicas
// is a start, a count and its ranges.
type Layout struct {
	start, n int32
	// gaps are the reserved ranges among the set's ordinals: sorted,
	// merged, and each one below the last ordinal.
	gaps []OrdinalRange
}

// NewLayout lays out count ordinals from start (both taken as 0 when
// negative) around the reserved ranges. Like SetOrdinals it stops at the
// largest ordinal a pod name can carry, so Len can be less than count.
func NewLayout(start, count int32, reserved []OrdinalRange) Layout {
	l := Layout{start: max(start, 0)}
	left, next := int64(max(count, 0)), int64(l.start)
	for _, r := range mergeRanges(reserved, l.start) {
		if int64(r.Low)-next >= left {
			break
		}
		left -= int64(r.Low) - next
		l.gaps = append(l.gaps, r)
		next = int64(r.High) + 1
	}
	placed := int64(max(count, 0)) - left + min(left, math.MaxInt32-next+1)
	l.n = int32(placed)
	if l.n == 0 {
		l.gaps = nil
	}
	return l
}

// mergeRanges sorts the ranges, cuts them to the ordinals from start on,
// and merges those that overlap or touch.
func mergeRanges(ranges []OrdinalRange, start int32) []OrdinalRange {
	var out []OrdinalRange
	for _, r := range slices.SortedFunc(slices.Values(ranges), func(a, b OrdinalRange) int { return cmp.Compare(a.Low, b.Low) }) {
		if r.High < start || r.Low > r.High {
			continue
		}
		r.Low = max(r.Low, start)
		if k := len(out) - 1; k >= 0 && int64(r.Low) <= int64(out[k].High)+1 {
			out[k].High = max(out[k].High, r.High)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Len is how many ordinals the set has.
func (l Layout) Len() int32 { return l.n }

// At is the ordinal at place i, 0 <= i < Len, lowest first.
func (l Layout) At(i int32) int32 {
	ord := int64(l.start) + int64(i)
	for _, g := range l.gaps {
		if int64(g.Low) > ord {
			break
		}
		ord += int64(g.High) - int64(g.Low) + 1
	}
	return int32(ord)
}

// Index is the place of ord among the set's ordinals, and whether it is
// one of them.
func (l Layout) Index(ord int32) (int32, bool) {
	below := l.Below(ord)
	if below >= l.n || ord < l.start || l.reserved(ord) {
		return 0, false
	}
	return below, true
}

// Below is how many of the set's ordinals are lower than ord.
func (l Layout) Below(ord int32) int32 {
	if ord <= l.start {
		return 0
	}
	n := int64(ord) - int64(l.start)
	for _, g := range l.gaps {
		if g.Low >= ord {
			break
		}
		n -= int64(min(g.High, ord-1)) - int64(g.Low) + 1
	}
	return int32(min(n, int64(l.n)))
}

func (l Layout) reserved(ord int32) bool {
	return slices.ContainsFunc(l.gaps, func(g OrdinalRange) bool { return g.Low <= ord && ord <= g.High })
}

// Last is the highest ordinal; false when there are none.
func (l Layout) Last() (int32, bool) {
	if l.n == 0 {
		return 0, false
	}
	return l.At(l.n - 1), true
}

// Runs are the set's ordinals as ranges of consecutive ones, lowest
// first: one more than the reserved ranges among them, at most.
func (l Layout) Runs() []OrdinalRange {
	if l.n == 0 {
		return nil
	}
	runs := make([]OrdinalRange, 0, len(l.gaps)+1)
	low, left := int64(l.start), int64(l.n)
	for _, g := range l.gaps {
		if size := int64(g.Low) - low; size > 0 {
			runs = append(runs, OrdinalRange{Low: int32(low), High: int32(low + size - 1)})
			left -= size
		}
		low = int64(g.High) + 1
	}
	return append(runs, OrdinalRange{Low: int32(low), High: int32(low + left - 1)})
}
