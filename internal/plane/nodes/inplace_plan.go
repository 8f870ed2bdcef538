package nodes

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// podEvent is an event the simulated kubelet records on a pod.
type podEvent struct {
	typ, reason, message string
}

// podPlan is planPod's answer: the status to write (nil when nothing
// changes), the events to record once it is written, and when to look at
// the pod again (0: only on its next change).
type podPlan struct {
	status *corev1.PodStatus
	events []podEvent
	after  time.Duration
}

// planPod decides what the simulated kubelet does next with a running pod
// whose spec changed in place. It is pure. The steps, in order:
//  1. restart every container whose image differs from the one it runs;
//  2. carry a resize one step (pending, in progress, done);
//  3. turn restarted containers Ready after the ready delay (or crash);
//  4. derive the pod's ContainersReady and Ready conditions, honouring
//     readiness gates.
//
// Pods that have not started yet (kwok's stages still own them), that are
// terminating or that have finished are left alone.
func planPod(pod *corev1.Pod, sim podSim, now time.Time) podPlan {
	if !owned(pod) {
		return podPlan{}
	}
	s := pod.Status.DeepCopy()
	var plan podPlan
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if cs := statusOf(s, c.Name); cs != nil && cs.Image != c.Image {
			plan.events = append(plan.events, restart(pod, c, cs, now, c.Name+" definition changed")...)
		}
	}
	resize := planResize(pod, s, sim, now)
	plan.events = append(plan.events, resize.events...)
	ready := settle(pod, s, sim, now)
	plan.events = append(plan.events, ready.events...)
	plan.after = soonest(resize.after, ready.after)
	setReadyConditions(pod, s, now)
	if !apiequality.Semantic.DeepEqual(&pod.Status, s) {
		s.ObservedGeneration = pod.Generation
		plan.status = s
	}
	return plan
}

// owned reports whether the simulated kubelet, rather than kwok's stages,
// handles pod: it runs and is not being deleted.
func owned(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && pod.Status.Phase == corev1.PodRunning && len(pod.Status.ContainerStatuses) > 0
}

func statusOf(s *corev1.PodStatus, name string) *corev1.ContainerStatus {
	for i := range s.ContainerStatuses {
		if s.ContainerStatuses[i].Name == name {
			return &s.ContainerStatuses[i]
		}
	}
	return nil
}

// soonest is the shorter of two requeue delays, where 0 means none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
