package forecast

import (
	"slices"
	"sort"
	"time"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Sample is a pod's state as a rehearsal saw it, At after the change;
// At 0 is its state when the change was made.
type Sample struct {
	At          time.Duration
	Pod         string
	Revision    string
	Ready       bool
	Terminating bool
	// Gone says the pod no longer exists.
	Gone bool
}

// state is the sample's segment state.
func (s Sample) state() State {
	switch {
	case s.Terminating:
		return Terminating
	case s.Ready:
		return Ready
	}
	return Starting
}

// Tracks turns samples, in time order, into each ordinal's segments: a
// new segment whenever a pod's revision or state changes, none while no
// pod of the ordinal exists, the last ones closed at end. Pods whose
// names are not set's are left out.
func Tracks(set string, samples []Sample, end time.Duration) []Track {
	open := map[string]*Segment{}
	byPod := map[string]*Track{}
	closeAt := func(pod string, at time.Duration) {
		if seg := open[pod]; seg != nil {
			seg.To = Seconds(at)
			if seg.To > seg.From || seg.Before {
				byPod[pod].Segments = append(byPod[pod].Segments, *seg)
			}
			delete(open, pod)
		}
	}
	for _, s := range samples {
		ord, ok := planner.ParseOrdinal(set, s.Pod)
		if !ok {
			continue
		}
		if byPod[s.Pod] == nil {
			byPod[s.Pod] = &Track{Pod: s.Pod, Ordinal: ord}
		}
		if seg := open[s.Pod]; seg != nil && !s.Gone && seg.Revision == s.Revision && seg.State == s.state() {
			continue
		}
		at := max(s.At, 0)
		closeAt(s.Pod, at)
		if !s.Gone {
			open[s.Pod] = &Segment{From: Seconds(at), Revision: s.Revision, State: s.state(), Before: s.At <= 0}
		}
	}
	out := make([]Track, 0, len(byPod))
	for pod := range byPod {
		closeAt(pod, end)
		out = append(out, *byPod[pod])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ordinal < out[j].Ordinal })
	return out
}

// Count is how many pods are Ready and Available from At until the next
// Count.
type Count struct {
	At        Seconds `json:"at"`
	Ready     int     `json:"ready"`
	Available int     `json:"available"`
}

// Counts is the step function of Ready and Available pods over the run:
// a pod is Available minReady after it turns Ready (at once for a pod
// Ready before the run began). The first Count is at 0; one is added at
// every change, up to end.
func Counts(tracks []Track, minReady time.Duration) []Count {
	type span struct{ from, to Seconds }
	var ready, avail []span
	times := []Seconds{0}
	for _, t := range tracks {
		for _, s := range t.Segments {
			if s.State != Ready {
				continue
			}
			ready = append(ready, span{s.From, s.To})
			from := s.From
			if !s.Before {
				from += Seconds(minReady)
			}
			if from < s.To {
				avail = append(avail, span{from, s.To})
			}
			times = append(times, s.From, s.To, from)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	covering := func(spans []span, at Seconds) int {
		n := 0
		for _, s := range spans {
			// A span as long as the run that ends at once covers its start.
			if s.from <= at && (at < s.to || s.from == s.to) {
				n++
			}
		}
		return n
	}
	var out []Count
	for _, at := range times {
		c := Count{At: at, Ready: covering(ready, at), Available: covering(avail, at)}
		if len(out) > 0 && out[len(out)-1].Ready == c.Ready && out[len(out)-1].Available == c.Available {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Fewest is the fewest Ready and Available pods of counts before end
// (the state at 0 counts even when end is 0).
func Fewest(counts []Count, end time.Duration) (ready, available int) {
	for i, c := range counts {
		if i > 0 && c.At.D() >= end {
			break
		}
		if i == 0 || c.Ready < ready {
			ready = c.Ready
		}
		if i == 0 || c.Available < available {
			available = c.Available
		}
	}
	return ready, available
}

// Below is how long before end fewer than needs pods were Ready.
func Below(counts []Count, needs int, end time.Duration) time.Duration {
	var total time.Duration
	for i, c := range counts {
		if c.At.D() >= end {
			break
		}
		next := end
		if i+1 < len(counts) {
			next = min(end, counts[i+1].At.D())
		}
		if c.Ready < needs {
			total += next - c.At.D()
		}
	}
	return total
}
