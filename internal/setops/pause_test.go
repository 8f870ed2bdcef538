package setops

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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
			if got := freezePartition(set, pods, r.newRev.Name); got != tt.want {
				t.Errorf("freezePartition = %d, want %d", got, tt.want)
			}
		})
	}
}

// rollout is a set of three midway through an update from revision 1 to
// revision 2.
type rollout struct {
	set            *appsv1.StatefulSet
	oldRev, newRev *appsv1.ControllerRevision
}

func newRollout(opts ...testgen.SetOption) rollout {
	old := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Replicas(3)}, opts...)...)
	set := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Replicas(3), testgen.Image("registry.example/app:2")}, opts...)...)
	return rollout{set: set, oldRev: testgen.RevisionOf(old, 1), newRev: testgen.RevisionOf(set, 2)}
}

func terminating(p *corev1.Pod) {
	p.DeletionTimestamp = ptr.To(metav1.NewTime(testgen.Epoch.Add(time.Minute)))
}
