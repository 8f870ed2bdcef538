package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// OrdinalRange is the ordinals from Low to High, both included.
type OrdinalRange struct {
	Low, High int32
}

// SetOrdinals returns the ordinals of a set's pods, lowest first: the
// first count ordinals from start that no range reserves. It stops early
// at the largest ordinal a pod name can carry, so it can return fewer than
// count.
func SetOrdinals(start, count int32, reserved []OrdinalRange) []int32 {
	ranges := slices.SortedFunc(slices.Values(reserved), func(a, b OrdinalRange) int { return cmp.Compare(a.Low, b.Low) })
	out := make([]int32, 0, max(count, 0))
	next, j := int64(max(start, 0)), 0
	for int32(len(out)) < count && next <= math.MaxInt32 {
		for j < len(ranges) && int64(ranges[j].High) < next {
			j++
		}
		if j < len(ranges) && int64(ranges[j].Low) <= next {
			next = int64(ranges[j].High) + 1
			continue
		}
		out = append(out, int32(next))
		next++
	}
	return out
}

// Reserved reports whether one of the ranges holds ord.
func Reserved(reserved []OrdinalRange, ord int32) bool {
	return slices.ContainsFunc(reserved, func(r OrdinalRange) bool { return r.Low <= ord && ord <= r.High })
}

// reservations are the extended set's reserved ordinals; none for apps/v1.
func (p *planner) reservations() []OrdinalRange {
	if p.ext == nil {
		return nil
	}
	return p.ext.Reserved
}

// placeOrdinals lays out the ordinals of a set that reserves some: its
// pods go to the first count free ordinals, and a pod at a reserved
// ordinal is condemned like one above the range. It returns how many
// ordinals there are, fewer than count when they run past the largest
// ordinal a pod name can carry.
func (p *planner) placeOrdinals(count int32) int32 {
	p.ordinals = SetOrdinals(p.start, count, p.ext.Reserved)
	p.index = make(map[int32]int, len(p.ordinals))
	for i, ord := range p.ordinals {
		p.index[ord] = i
	}
	if n := int32(len(p.ordinals)); n < count {
		p.warn(ReasonOrdinalOverflow, "StatefulSet/"+p.set.Name, fmt.Sprintf(
			"ordinals above %d cannot be named; with the reserved ordinals only %d replicas are managed", math.MaxInt32, n))
		return n
	}
	return count
}

// indexOf is the place in p.replicas of the pod with ordinal ord, if the
// ordinal is one of the set's.
func (p *planner) indexOf(ord int32) (int, bool) {
	if p.index != nil {
		i, ok := p.index[ord]
		return i, ok
	}
	i := int64(ord) - int64(p.start)
	return int(i), i >= 0 && i < int64(len(p.replicas))
}

// ordinalAt is the ordinal of the pod at place i of p.replicas.
func (p *planner) ordinalAt(i int) int32 {
	if p.ordinals != nil {
		return p.ordinals[i]
	}
	return p.start + int32(i)
}

// condemnedWhy says why a condemned pod goes: its ordinal is reserved, or
// it is outside the set's ordinals.
func (p *planner) condemnedWhy(s slot) string {
	if Reserved(p.reservations(), s.ordinal) {
		return fmt.Sprintf("scale down: ordinal %d of %s is reserved (reserveOrdinals %s), so the pod is removed; the set's ordinals are %s",
			s.ordinal, s.pod.Name, rangesWords(p.reservations()), p.rangeWords())
	}
	return fmt.Sprintf("scale down: %s is outside ordinals %s", s.pod.Name, p.rangeWords())
}

// rangeWords names the set's ordinals: "0..2", or with reserved ordinals
// the runs between them, "0, 2..3 (1 reserved)".
func (p *planner) rangeWords() string {
	n := len(p.replicas)
	if n == 0 {
		return "(none: replicas is 0)"
	}
	if p.ordinals == nil {
		return fmt.Sprintf("%d..%d", p.start, int64(p.start)+int64(n)-1)
	}
	var runs []OrdinalRange
	for _, ord := range p.ordinals {
		if k := len(runs) - 1; k >= 0 && int64(runs[k].High)+1 == int64(ord) {
			runs[k].High = ord
			continue
		}
		runs = append(runs, OrdinalRange{ord, ord})
	}
	return fmt.Sprintf("%s (%s reserved)", rangesWords(runs), rangesWords(p.reservations()))
}

func rangesWords(ranges []OrdinalRange) string {
	words := make([]string, 0, len(ranges))
	for _, r := range ranges {
		if r.Low == r.High {
			words = append(words, fmt.Sprint(r.Low))
		} else {
			words = append(words, fmt.Sprintf("%d..%d", r.Low, r.High))
		}
	}
	return strings.Join(words, ", ")
}
