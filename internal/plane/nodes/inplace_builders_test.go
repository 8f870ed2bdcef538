package nodes

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// t0 is when the test pods' container started; tests plan at t0 plus a
// few seconds.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const oldImage, newImage = "example.com/db:1", "example.com/db:2"

// podOpt and runningPod keep each test's pod to the fields it is about.
type podOpt func(*corev1.Pod)

// runningPod is a pod of generation 1 with one container "db" running
// oldImage with 100m/200m cpu, Ready since t0, as kwok's stages leave it.
func runningPod(opts ...podOpt) *corev1.Pod {
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m")},
	}
	at := metav1.NewTime(t0)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db-0", UID: "uid-1", Generation: 1},
		Spec:       corev1.PodSpec{NodeName: NodeName(0), Containers: []corev1.Container{{Name: "db", Image: oldImage, Resources: res}}},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: at},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "db", Image: oldImage, ImageID: ImageID(oldImage), ContainerID: ContainerID("uid-1", "db", 0),
				Ready: true, Started: new(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}},
				Resources: res.DeepCopy(), AllocatedResources: res.Requests.DeepCopy(),
			}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withImage(image string) podOpt {
	return func(p *corev1.Pod) { p.Spec.Containers[0].Image = image; p.Generation++ }
}

// withCPU resizes the spec's cpu request and limit.
func withCPU(request, limit string) podOpt {
	return func(p *corev1.Pod) {
		r := &p.Spec.Containers[0].Resources
		r.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(request)}
		r.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limit)}
		p.Generation++
	}
}

func withPolicy(name corev1.ResourceName, policy corev1.ResourceResizeRestartPolicy) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].ResizePolicy = append(p.Spec.Containers[0].ResizePolicy,
			corev1.ContainerResizePolicy{ResourceName: name, RestartPolicy: policy})
	}
}

func withCondition(c corev1.PodCondition) podOpt {
	return func(p *corev1.Pod) { p.Status.Conditions = append(p.Status.Conditions, c) }
}

func withGate(t corev1.PodConditionType) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: t})
	}
}

// withStatus edits the container's status.
func withStatus(f func(*corev1.ContainerStatus)) podOpt {
	return func(p *corev1.Pod) { f(&p.Status.ContainerStatuses[0]) }
}

// restartedAt makes the container an in-place restart of the spec's image
// started at, not Ready yet, as planPod leaves it.
func restartedAt(at time.Time) podOpt {
	return func(p *corev1.Pod) {
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount, cs.Ready, cs.Image = 1, false, p.Spec.Containers[0].Image
		cs.ImageID = ImageID(cs.Image)
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(at)}}
		for i := range p.Status.Conditions {
			c := &p.Status.Conditions[i]
			c.Status, c.Reason, c.ObservedGeneration = corev1.ConditionFalse, reasonContainersNotReady, p.Generation
		}
	}
}

func inPhase(phase corev1.PodPhase) podOpt {
	return func(p *corev1.Pod) { p.Status.Phase = phase }
}
