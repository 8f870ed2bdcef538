package bench

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheReadyFloorKeepsTheFewestReadyMembersOfOneSetWhileRecording(t *testing.T) {
	terminating := func(p *corev1.Pod) *corev1.Pod {
		p.DeletionTimestamp = &metav1.Time{Time: time.Now()}
		return p
	}
	var f readyFloor
	for _, set := range []string{"a", "b"} {
		for _, n := range []string{"-0", "-1", "-2"} {
			f.pod("bench/"+set+n, set, benchPod(set+n, set, imageV1, true))
		}
	}
	f.pod("bench/b-2", "b", benchPod("b-2", "b", imageV1, false)) // b has 2 before the window
	f.pod("bench/x", "", benchPod("x", "", imageV1, true))        // a pod of no set is no member
	if _, ok := f.result(); ok {
		t.Fatal("a fewest before any window")
	}
	f.record(true)
	if got, _ := f.result(); got != 2 {
		t.Errorf("at the window's start: fewest %d, want b's 2", got)
	}
	f.pod("bench/b-2", "b", benchPod("b-2", "b", imageV1, true))
	f.pod("bench/a-0", "a", terminating(benchPod("a-0", "a", imageV1, true))) // still Ready, but going
	f.pod("bench/a-0", "a", nil)
	f.pod("bench/a-1", "a", benchPod("a-1", "a", imageV1, false)) // a down to 1
	f.pod("bench/a-1", "a", benchPod("a-1", "a", imageV1, true))
	f.pod("bench/a-0", "a", benchPod("a-0", "a", imageV1, true))
	f.record(false)
	f.pod("bench/b-0", "b", nil) // after the window: not counted
	f.pod("bench/b-1", "b", nil)
	if got, ok := f.result(); got != 1 || !ok {
		t.Errorf("fewest %d (%v), want a's 1 in the window", got, ok)
	}
	f.record(true)
	if got, _ := f.result(); got != 1 {
		t.Errorf("a new window starts at the fewest now: %d, want b's 1", got)
	}
}
