package planner

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// CrashLoopRestarts is how many restarts make a crash-looping container a
// permanent failure rather than a slow start.
const CrashLoopRestarts = 3

// permanentWaiting are container waiting reasons that time does not cure:
// the pod will not start until its spec or its environment changes.
var permanentWaiting = map[string]bool{
	"InvalidImageName":           true,
	"ErrImageNeverPull":          true,
	"ImagePullBackOff":           true,
	"CreateContainerConfigError": true,
	"CreateContainerError":       true,
}

// Classify says why pod is not Available, or nil when it is. deadline is
// how long a pod may stay Running and not Ready before that counts as
// never Ready; zero never does.
func Classify(pod *corev1.Pod, minReadySeconds int32, now time.Time, deadline time.Duration) *PodFailure {
	if pod == nil || !isCreated(pod) || (IsAvailable(pod, minReadySeconds, now) && !isTerminating(pod)) {
		return nil
	}
	f := &PodFailure{Pod: pod.Name, Revision: podRevision(pod), Since: sinceOf(pod)}
	switch {
	case pod.Status.Phase == corev1.PodFailed:
		f.Reason, f.Permanent, f.Message = "Failed", true, failedMessage(pod)
	case isTerminating(pod):
		f.Reason, f.Message = "Terminating", "the pod is being deleted"
	case containerFailure(pod, f):
	case unschedulable(pod, f):
	case pod.Status.Phase == corev1.PodPending:
		f.Reason, f.Message = "Pending", "the pod has not started"
	case readyCondition(pod) == nil && deadline > 0 && now.Sub(f.Since) >= deadline:
		f.Reason, f.Message = "NeverReady", fmt.Sprintf("Running and not Ready for %s", now.Sub(f.Since).Round(time.Second))
	case readyCondition(pod) == nil:
		f.Reason, f.Message = "NotReady", "Running, not Ready"
	default:
		f.Reason, f.Message = "NotAvailable", fmt.Sprintf("Ready, not yet Available (minReadySeconds %d)", minReadySeconds)
	}
	return f
}

// containerFailure fills f from the first container that is stuck or
// crash-looping, init containers first.
func containerFailure(pod *corev1.Pod, f *PodFailure) bool {
	cs := troubledContainer(pod)
	if cs == nil {
		return false
	}
	w := cs.State.Waiting
	f.Reason = w.Reason
	f.Permanent = permanentWaiting[w.Reason] || (w.Reason == "CrashLoopBackOff" && cs.RestartCount >= CrashLoopRestarts)
	f.Message = fmt.Sprintf("container %s: %s", cs.Name, w.Reason)
	if w.Message != "" {
		f.Message += ": " + w.Message
	}
	if w.Reason == "CrashLoopBackOff" {
		f.Message += fmt.Sprintf(" (%d restarts)", cs.RestartCount)
	}
	return true
}

// troubledContainer is the status of the first container, init containers
// first, that waits for a reason Classify knows: stuck on its image or
// configuration, or crash-looping.
func troubledContainer(pod *corev1.Pod) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for i := range list {
			if w := list[i].State.Waiting; w != nil && (permanentWaiting[w.Reason] || w.Reason == "CrashLoopBackOff" || w.Reason == "ErrImagePull") {
				return &list[i]
			}
		}
	}
	return nil
}

// unschedulableCondition is the pod's PodScheduled condition when it says
// the scheduler found no node.
func unschedulableCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func unschedulable(pod *corev1.Pod, f *PodFailure) bool {
	if c := unschedulableCondition(pod); c != nil {
		f.Reason, f.Message = "Unschedulable", c.Message
		return true
	}
	return false
}

func failedMessage(pod *corev1.Pod) string {
	if pod.Status.Message != "" {
		return pod.Status.Message
	}
	if pod.Status.Reason != "" {
		return pod.Status.Reason
	}
	return "the pod failed"
}
