package bench

import corev1 "k8s.io/api/core/v1"

// readyFloor follows, pod by pod, how many Ready members each set has,
// and keeps the fewest any one set had while recording. A member counts
// while its pod is Ready and not terminating: once marked for deletion it
// leaves its Services' endpoints, whatever its Ready condition still says.
// It changes only at pod watch events, so the fewest is exact, not sampled.
// The zero value is ready to use.
type readyFloor struct {
	podSet map[string]string // pod key → its set, for the pods counted
	ready  map[string]int32  // set → pods counted

	recording bool
	fewest    int32
	seen      bool
}

// pod notes a pod's state; pod nil means it is gone. Pods of no set are
// left out.
func (f *readyFloor) pod(key, set string, pod *corev1.Pod) {
	if f.podSet == nil {
		f.podSet, f.ready = map[string]string{}, map[string]int32{}
	}
	counted, was := f.podSet[key]
	member := set != "" && pod != nil && pod.DeletionTimestamp == nil && podReady(pod)
	switch {
	case member && !was:
		f.podSet[key] = set
		f.ready[set]++
		f.note(set)
	case !member && was:
		delete(f.podSet, key)
		f.ready[counted]--
		f.note(counted)
	}
}

// note keeps set's count if it is the fewest seen while recording.
func (f *readyFloor) note(set string) {
	if f.recording && (!f.seen || f.ready[set] < f.fewest) {
		f.fewest, f.seen = f.ready[set], true
	}
}

// record starts or stops recording; a window starts at the fewest any
// set has at its start, counting the sets that have had a Ready member.
func (f *readyFloor) record(on bool) {
	f.recording = on
	if !on {
		return
	}
	f.seen = false
	for set := range f.ready {
		f.note(set)
	}
}

// result returns the fewest Ready members any one set had in the last
// window; ok is false if no set had any.
func (f *readyFloor) result() (fewest int32, ok bool) {
	return f.fewest, f.seen
}
