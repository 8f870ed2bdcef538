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

// inRange reports whether ord is one of the set's ordinals.
func (p *planner) inRange(ord int32) bool {
	_, ok := p.layout.Index(ord)
	return ok
}

// missing is how many of the set's ordinals have no pod.
func (p *planner) missing() int {
	return int(p.layout.Len()) - len(p.replicas)
}

// eachOrdinal calls f with the set's ordinals in order, each with its
// observed pod's slot, nil when it has none, until f returns false. A
// pass that acts on a missing ordinal builds its pod (placeholder).
func (p *planner) eachOrdinal(f func(ord int32, s *slot) bool) {
	j := 0
	for _, run := range p.layout.Runs() {
		for ord := int64(run.Low); ord <= int64(run.High); ord++ {
			var s *slot
			if j < len(p.replicas) && int64(p.replicas[j].ordinal) == ord {
				s = &p.replicas[j]
				j++
			}
			if !f(int32(ord), s) {
				return
			}
		}
	}
}

// eachOrdinalDown is eachOrdinal from the highest ordinal down.
func (p *planner) eachOrdinalDown(f func(ord int32, s *slot) bool) {
	runs, j := p.layout.Runs(), len(p.replicas)-1
	for r := len(runs) - 1; r >= 0; r-- {
		for ord := int64(runs[r].High); ord >= int64(runs[r].Low); ord-- {
			var s *slot
			if j >= 0 && int64(p.replicas[j].ordinal) == ord {
				s = &p.replicas[j]
				j--
			}
			if !f(int32(ord), s) {
				return
			}
		}
	}
}

// ordinalsFrom is how many of the set's ordinals are at or above from.
func (p *planner) ordinalsFrom(from int64) int {
	if from > math.MaxInt32 {
		return 0
	}
	return int(p.layout.Len() - p.layout.Below(int32(max(from, 0))))
}

// firstMissing is the lowest of the set's ordinals without a pod.
func (p *planner) firstMissing() (int32, bool) {
	if p.missing() == 0 {
		return 0, false
	}
	var first int32
	p.eachOrdinal(func(ord int32, s *slot) bool {
		first = ord
		return s != nil
	})
	return first, true
}

// condemnedWhy says why a condemned pod goes: its ordinal is reserved, or
// it is outside the set's ordinals.
func (p *planner) condemnedWhy(s slot) string {
	if p.offline(s.ordinal) {
		return p.offlineWhy(s)
	}
	if Reserved(p.reservations(), s.ordinal) {
		return fmt.Sprintf("scale down: ordinal %d of %s is reserved (reserveOrdinals %s), so the pod is removed; the set's ordinals are %s",
			s.ordinal, s.pod.Name, rangesWords(p.reservations()), p.rangeWords())
	}
	return fmt.Sprintf("scale down: %s is outside ordinals %s", s.pod.Name, p.rangeWords())
}

// rangeWords names the set's ordinals: "0..2", or with reserved ordinals
// the runs between them, "0, 2..3 (1 reserved)".
func (p *planner) rangeWords() string {
	runs := p.layout.Runs()
	switch {
	case len(runs) == 0:
		return "(none: replicas is 0)"
	case len(p.reservations()) == 0:
		return fmt.Sprintf("%d..%d", runs[0].Low, runs[0].High)
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
