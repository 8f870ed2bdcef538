package rolloutview

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// rollout is a set of three midway through an update from revision 1 to
// revision 2: web-2 runs the new template, web-0 and web-1 the old one.
type rollout struct {
	set            *appsv1.StatefulSet
	oldRev, newRev *appsv1.ControllerRevision
}

func newRollout(opts ...testgen.SetOption) rollout {
	old := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Replicas(3)}, opts...)...)
	oldRev := testgen.RevisionOf(old, 1)
	set := testgen.StatefulSet("web", append([]testgen.SetOption{testgen.Replicas(3), testgen.Image("registry.example/app:2")}, opts...)...)
	newRev := testgen.RevisionOf(set, 2)
	set.Status = appsv1.StatefulSetStatus{
		ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 2, CurrentReplicas: 2, UpdatedReplicas: 1,
		CurrentRevision: oldRev.Name, UpdateRevision: newRev.Name,
	}
	return rollout{set: set, oldRev: oldRev, newRev: newRev}
}

// pods returns web-0, web-1 Ready at the old revision and web-2 at the new
// one, changed by last.
func (r rollout) pods(last ...testgen.PodOption) []*corev1.Pod {
	return []*corev1.Pod{
		testgen.Pod(r.set, 0, testgen.At(r.oldRev)),
		testgen.Pod(r.set, 1, testgen.At(r.oldRev)),
		testgen.Pod(r.set, 2, append([]testgen.PodOption{testgen.At(r.newRev)}, last...)...),
	}
}

func crashLooping(p *corev1.Pod) {
	testgen.NotReady(testgen.Epoch)(p)
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name:  "app",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 10s restarting failed container"}},
	}}
}

func terminating(p *corev1.Pod) {
	p.DeletionTimestamp = ptr.To(metav1.NewTime(testgen.Epoch.Add(time.Minute)))
}
