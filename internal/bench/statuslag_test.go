package bench

import (
	"fmt"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func runningPod(name, set string, ready bool) *corev1.Pod {
	p := benchPod(name, set, imageV1, ready)
	p.Status.Phase = corev1.PodRunning
	return p
}

func TestStatusLagWeighsEachGapByHowLongItHeld(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	l := newStatusLag()
	l.setStatus("web", 0, false, at(0))
	l.record(true, at(0))
	l.pod("bench/web-0", "web", runningPod("web-0", "web", true), at(1)) // gap 1 from 1 s
	l.pod("bench/web-1", "web", runningPod("web-1", "web", true), at(2)) // gap 2 from 2 s
	l.setStatus("web", 2, false, at(4))                                  // gap 0 from 4 s
	l.pod("bench/web-1", "web", nil, at(5))                              // gap 1 from 5 s
	l.record(false, at(10))
	r, ok := l.result()
	if !ok {
		t.Fatal("no result after the window ended")
	}
	// 1×1 s + 2×2 s + 1×5 s over 10 s.
	if want := 1.0; math.Abs(r.mean-want) > 1e-9 || r.peak != 2 {
		t.Errorf("mean %v, max %d; want %v and 2", r.mean, r.peak, want)
	}
}

// Two controllers that make pods Ready at different rates trail by
// different numbers of pods for the same delay; the wait is the delay.
// Here each status write counts the pods seen so far: web-0 and web-1,
// Ready at 0 s and 1 s, are counted at 1.5 s (waits 1.5 s and 0.5 s);
// web-2 and web-3, at 2 s and 3 s, are counted at 3.5 s (1.5 s, 0.5 s).
func TestStatusWaitIsTheMeanTimeAChangeWaitedToBeCounted(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for _, pace := range []float64{1, 0.25} {
		l := newStatusLag()
		l.setStatus("web", 0, false, at(0))
		l.record(true, at(0))
		ready := func(i int) {
			name := fmt.Sprintf("web-%d", i)
			l.pod("bench/"+name, "web", runningPod(name, "web", true), at(float64(i)*pace))
			l.pod("bench/"+name, "web", runningPod(name, "web", true), at(float64(i)*pace)) // an update that changes nothing
		}
		ready(0)
		ready(1)
		l.setStatus("web", 2, false, at(1.5*pace))
		ready(2)
		ready(3)
		l.setStatus("web", 4, false, at(3.5*pace))
		l.record(false, at(4))
		r, ok := l.result()
		if !ok || !r.hasWait {
			t.Fatalf("pace %v: no wait after four pods turned Ready", pace)
		}
		if want := time.Duration(pace * float64(time.Second)); (r.wait - want).Abs() > time.Microsecond {
			t.Errorf("pace %v: mean wait %s, want %s", pace, r.wait, want)
		}
	}
}

func TestStatusWaitIsAbsentWithoutChanges(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newStatusLag()
	l.setStatus("web", 0, false, now)
	l.record(true, now)
	l.record(false, now.Add(time.Second))
	if r, ok := l.result(); !ok || r.hasWait {
		t.Errorf("result %+v, %t; want a window with no wait", r, ok)
	}
}

func TestStatusLagCountsRunningReadyPodsPerSet(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newStatusLag()
	l.record(true, now)
	pending := benchPod("a-0", "a", imageV1, true) // Ready but not Running: not counted
	l.pod("bench/a-0", "a", pending, now)
	l.pod("bench/a-1", "a", runningPod("a-1", "a", false), now)
	l.pod("bench/b-0", "b", runningPod("b-0", "b", true), now)
	l.setStatus("a", 1, false, now) // a claims one more than it has
	if l.gap != 2 {
		t.Fatalf("gap %d, want 2 (a over by one, b under by one)", l.gap)
	}
	l.pod("bench/a-1", "a", runningPod("a-1", "a", true), now)
	l.setStatus("b", 1, false, now)
	if l.gap != 0 {
		t.Errorf("gap %d once both agree, want 0", l.gap)
	}
}
