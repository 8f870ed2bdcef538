package planner

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// IsRunningAndReady reports phase Running with condition Ready=True, the
// readiness OrderedReady waits for.
func IsRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && readyCondition(pod) != nil
}

// IsAvailable reports whether pod has been Ready for minReadySeconds at now.
// As upstream's podutil.IsPodAvailable it does not look at the phase, and a
// Ready condition without a transition time never becomes available when
// minReadySeconds > 0. The boundary is inclusive: ready at t with
// minReadySeconds m is available from t+m on.
func IsAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	c := readyCondition(pod)
	if c == nil {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	return !c.LastTransitionTime.IsZero() && !availableAt(c, minReadySeconds).After(now)
}

// readyCondition returns the first Ready condition if it is True.
func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; c.Type == corev1.PodReady {
			if c.Status == corev1.ConditionTrue {
				return c
			}
			return nil
		}
	}
	return nil
}

func availableAt(ready *corev1.PodCondition, minReadySeconds int32) time.Time {
	return ready.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second)
}

// isCreated is upstream's test: the API server sets phase Pending on
// create, so an empty phase means the pod does not exist yet.
func isCreated(pod *corev1.Pod) bool {
	return pod.Status.Phase != ""
}

func isTerminating(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp != nil
}

func isFinished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

// isUnavailable is what maxUnavailable and scale-down count: not available,
// or on its way out.
func isUnavailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	return !IsAvailable(pod, minReadySeconds, now) || isTerminating(pod)
}

// healthy is what OrderedReady requires of a pod before it moves past it.
func healthy(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	return isCreated(pod) && !isTerminating(pod) && IsRunningAndReady(pod) && IsAvailable(pod, minReadySeconds, now)
}

// stateOf describes a pod's state in the words Wait.State uses.
func stateOf(pod *corev1.Pod, minReadySeconds int32, now time.Time) string {
	switch {
	case isFinished(pod) && isTerminating(pod):
		return string(pod.Status.Phase) + ", terminating"
	case isFinished(pod):
		return string(pod.Status.Phase)
	case isTerminating(pod):
		return "Terminating"
	case pod.Status.Phase == "":
		return "Missing"
	case pod.Status.Phase != corev1.PodRunning:
		return string(pod.Status.Phase)
	case readyCondition(pod) == nil:
		return "Running, not Ready"
	case !IsAvailable(pod, minReadySeconds, now):
		return fmt.Sprintf("Ready, not Available (minReadySeconds %d)", minReadySeconds)
	}
	return "Available"
}

// sinceOf is when the pod entered the state stateOf reports, when known.
func sinceOf(pod *corev1.Pod) time.Time {
	if isTerminating(pod) {
		grace := int64(0)
		if pod.DeletionGracePeriodSeconds != nil {
			grace = *pod.DeletionGracePeriodSeconds
		}
		return pod.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return pod.CreationTimestamp.Time
}
