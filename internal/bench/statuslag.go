package bench

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// statusLag measures how far the sets' statuses trail their pods: the gap
// is, summed over the sets, |pods Running and Ready − status.readyReplicas|
// (a pod counts as upstream counts it, terminating or not). Both sides come
// from watches, so the gap changes only at watch events and the mean over
// the window is exact, not sampled: the gap weighted by how long it held.
// A set whose status has not been seen reports 0 ready.
//
// The gap in pods grows with how fast pods change: a controller that makes
// pods Ready twice as fast trails by twice as many for the same delay. The
// wait is the delay itself: by Little's law the mean gap is the rate of
// readiness changes times the mean time each waits to be counted, so the
// window's area over its readiness changes is that mean wait. It is exact
// while the changes go one way (a scale-up, a scale-down), each status
// counting every change its controller had seen; where they go both ways
// (a roll-out) changes can cancel in the count, and the wait is a bound
// from below.
type statusLag struct {
	ready  map[string]int32  // set → Running and Ready pods
	podSet map[string]string // pod key → its set, for pods counted in ready
	status map[string]int32  // set → status.readyReplicas as last seen
	gap    int64

	recording bool
	since     time.Time // last change of gap, or the window's start
	began     time.Time // the window's start
	area      float64   // gap × seconds over the window so far
	max       int64
	changes   int64   // pods turning Running and Ready, or no longer, in the window
	seconds   float64 // the window's length, once it ends
}

func newStatusLag() *statusLag {
	return &statusLag{ready: map[string]int32{}, podSet: map[string]string{}, status: map[string]int32{}}
}

// pod notes a pod's state at now; pod nil means it is gone.
func (l *statusLag) pod(key, set string, pod *corev1.Pod, now time.Time) {
	counted, was := l.podSet[key]
	ready := pod != nil && pod.Status.Phase == corev1.PodRunning && podReady(pod)
	switch {
	case ready && !was:
		l.adjust(set, now, func() { l.podSet[key] = set; l.ready[set]++ })
	case !ready && was:
		l.adjust(counted, now, func() { delete(l.podSet, key); l.ready[counted]-- })
	default:
		return
	}
	if l.recording {
		l.changes++
	}
}

// setStatus notes the readyReplicas a set's status reports at now; gone
// means the set was deleted.
func (l *statusLag) setStatus(set string, readyReplicas int32, gone bool, now time.Time) {
	l.adjust(set, now, func() {
		if gone {
			delete(l.status, set)
			return
		}
		l.status[set] = readyReplicas
	})
}

// adjust applies change, which changes set's counts, at now: the old gap's
// time goes into the window's area and set's term of the gap is replaced.
func (l *statusLag) adjust(set string, now time.Time, change func()) {
	l.accrue(now)
	l.gap -= l.term(set)
	change()
	l.gap += l.term(set)
	if l.recording {
		l.max = max(l.max, l.gap)
	}
}

// term is set's part of the gap.
func (l *statusLag) term(set string) int64 {
	return abs64(int64(l.ready[set]) - int64(l.status[set]))
}

func (l *statusLag) accrue(now time.Time) {
	if l.recording && now.After(l.since) {
		l.area += float64(l.gap) * now.Sub(l.since).Seconds()
	}
	l.since = now
}

// record starts or ends the window at now.
func (l *statusLag) record(on bool, now time.Time) {
	l.accrue(now)
	switch {
	case on && !l.recording:
		l.recording, l.began, l.area, l.max, l.changes, l.seconds = true, now, 0, l.gap, 0, 0
	case !on && l.recording:
		l.recording, l.seconds = false, now.Sub(l.began).Seconds()
	}
}

// lagResult is a window's status lag: the time-weighted mean gap and the
// largest, in pods, and the mean time a readiness change waited to be
// counted (hasWait false when no pod changed).
type lagResult struct {
	mean    float64
	peak    int64
	wait    time.Duration
	hasWait bool
}

// result returns the window's status lag; ok is false before a window has
// ended.
func (l *statusLag) result() (r lagResult, ok bool) {
	if l.recording || l.seconds <= 0 {
		return lagResult{}, false
	}
	r = lagResult{mean: l.area / l.seconds, peak: l.max}
	if l.changes > 0 {
		r.wait, r.hasWait = time.Duration(l.area/float64(l.changes)*float64(time.Second)), true
	}
	return r, true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
