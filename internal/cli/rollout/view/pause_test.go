package view

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestFreezePartition(t *testing.T) {
	r := newRollout()
	old, upd := testgen.At(r.oldRev), testgen.At(r.newRev)
	pod := func(ord int32, opts ...testgen.PodOption) *corev1.Pod { return testgen.Pod(r.set, ord, opts...) }
	tests := []struct {
		name string
		opts []testgen.SetOption
		pods []*corev1.Pod
		want int32
	}{
		{"nothing updated yet holds every ordinal", nil, []*corev1.Pod{pod(0, old), pod(1, old), pod(2, old)}, 3},
		{"one updated pod holds the ordinals below it", nil, []*corev1.Pod{pod(0, old), pod(1, old), pod(2, upd)}, 2},
		{"a pod being replaced keeps going to the update", nil, []*corev1.Pod{pod(0, old), pod(2, upd)}, 1},
		{"a terminating old pod counts as being replaced", nil, []*corev1.Pod{pod(0, old), pod(1, old, terminating), pod(2, upd)}, 1},
		{"everything updated holds future updates", nil, []*corev1.Pod{pod(0, upd), pod(1, upd), pod(2, upd)}, 3},
		{"the set's own higher partition is kept", []testgen.SetOption{testgen.Partition(3)}, []*corev1.Pod{pod(0, old), pod(1, upd), pod(2, upd)}, 3},
		{"the start ordinal shifts nothing in the count", []testgen.SetOption{testgen.Start(5)}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := newRollout(tt.opts...).set
			pods := tt.pods
			if pods == nil {
				// With spec.ordinals.start 5: web-5 old, web-6 and web-7 updated.
				pods = []*corev1.Pod{testgen.Pod(set, 5, old), testgen.Pod(set, 6, upd), testgen.Pod(set, 7, upd)}
				tt.want = 1
			}
			if got := FreezePartition(set, pods, r.newRev.Name); got != tt.want {
				t.Errorf("FreezePartition = %d, want %d", got, tt.want)
			}
		})
	}
}
