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
	statuses := append(append([]corev1.ContainerStatus(nil), pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, cs := range statuses {
		w := cs.State.Waiting
		if w == nil || w.Reason == "" {
			continue
		}
		switch {
		case permanentWaiting[w.Reason]:
			f.Reason, f.Permanent = w.Reason, true
		case w.Reason == "CrashLoopBackOff":
			f.Reason, f.Permanent = w.Reason, cs.RestartCount >= CrashLoopRestarts
		case w.Reason == "ErrImagePull":
			f.Reason = w.Reason
		default:
			continue
		}
		f.Message = fmt.Sprintf("container %s: %s", cs.Name, w.Reason)
		if w.Message != "" {
			f.Message += ": " + w.Message
		}
		if f.Reason == "CrashLoopBackOff" {
			f.Message += fmt.Sprintf(" (%d restarts)", cs.RestartCount)
		}
		return true
	}
	return false
}

func unschedulable(pod *corev1.Pod, f *PodFailure) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			f.Reason, f.Message = "Unschedulable", c.Message
			return true
		}
	}
	return false
}

func failedMessage(pod *corev1.Pod) string {
	if pod.Status.Message != "" {
		return pod.Status.Message
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return fmt.Sprintf("container %s exited with code %d", cs.Name, t.ExitCode)
		}
	}
	return "the pod failed"
}
