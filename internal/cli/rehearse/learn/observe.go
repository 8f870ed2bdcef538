package learn

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// observe reads a pod's start-up from its conditions: PodScheduled to
// Ready, when it became Ready once and never restarted since (a restart
// moves Ready's time to the restart). The conditions keep whole seconds,
// so a start-up is known to a second.
func observe(pod *corev1.Pod) Pod {
	p := Pod{Name: pod.Name, Restarts: restarts(pod), State: notReady(pod)}
	created := pod.CreationTimestamp.Time
	scheduled, okS := conditionTime(pod, corev1.PodScheduled)
	initialized, okI := conditionTime(pod, corev1.PodInitialized)
	ready, okR := conditionTime(pod, corev1.PodReady)
	if !okS || !okR || p.Restarts > 0 || p.State != "" || ready.Before(scheduled) {
		return p
	}
	p.StartUp, p.StartUpFrom = Seconds(ready.Sub(scheduled)), FromConditions
	if okI && !initialized.Before(scheduled) && !ready.Before(initialized) && !scheduled.Before(created) {
		p.Stages = &Stages{
			Scheduling:   Seconds(scheduled.Sub(created)),
			Initializing: Seconds(initialized.Sub(scheduled)),
			Starting:     Seconds(ready.Sub(initialized)),
		}
	}
	return p
}

// conditionTime is when the pod's condition of type c last turned True;
// false when it is not True.
func conditionTime(pod *corev1.Pod, c corev1.PodConditionType) (time.Time, bool) {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == c {
			return cond.LastTransitionTime.Time, cond.Status == corev1.ConditionTrue && !cond.LastTransitionTime.IsZero()
		}
	}
	return time.Time{}, false
}

func restarts(pod *corev1.Pod) int32 {
	var n int32
	for _, cs := range pod.Status.ContainerStatuses {
		n += cs.RestartCount
	}
	return n
}

// notReady says why a pod is not Ready, in a kubectl-like word; "" when
// it is Ready and not being deleted.
func notReady(pod *corev1.Pod) string {
	if pod.DeletionTimestamp != nil {
		return "Terminating"
	}
	if _, ok := conditionTime(pod, corev1.PodReady); ok {
		return ""
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return w.Reason
		}
	}
	if pod.Status.Phase == corev1.PodRunning {
		return "Running, not Ready"
	}
	if pod.Status.Phase == "" {
		return "Pending"
	}
	return fmt.Sprint(pod.Status.Phase)
}

// preStopSleep is the longest preStop sleep action of the containers:
// the part of a shutdown the simulated node plays by itself.
func preStopSleep(spec corev1.PodSpec) time.Duration {
	var longest time.Duration
	for _, c := range spec.Containers {
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
			longest = max(longest, time.Duration(c.Lifecycle.PreStop.Sleep.Seconds)*time.Second)
		}
	}
	return longest
}

// gracePeriod is the template's terminationGracePeriodSeconds, 30 by
// default.
func gracePeriod(spec corev1.PodSpec) time.Duration {
	if spec.TerminationGracePeriodSeconds == nil {
		return corev1.DefaultTerminationGracePeriodSeconds * time.Second
	}
	return time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
}
