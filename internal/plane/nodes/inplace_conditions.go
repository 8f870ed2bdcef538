package nodes

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons of the kubelet's pod conditions (pkg/kubelet/status).
const (
	reasonContainersNotReady     = "ContainersNotReady"
	reasonReadinessGatesNotReady = "ReadinessGatesNotReady"
)

// setReadyConditions derives ContainersReady and Ready from the container
// statuses and the pod's readiness gates, as a kubelet does: Ready needs
// every container Ready and every gate's condition True.
func setReadyConditions(pod *corev1.Pod, s *corev1.PodStatus, now time.Time) {
	var unready []string
	for _, cs := range s.ContainerStatuses {
		if !cs.Ready {
			unready = append(unready, cs.Name)
		}
	}
	containers := corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}
	if len(unready) > 0 {
		containers.Status, containers.Reason = corev1.ConditionFalse, reasonContainersNotReady
		containers.Message = fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
	}
	ready := containers
	ready.Type = corev1.PodReady
	if gates := unreadyGates(pod, s); len(unready) == 0 && gates != "" {
		ready.Status, ready.Reason, ready.Message = corev1.ConditionFalse, reasonReadinessGatesNotReady, gates
	}
	for _, c := range []corev1.PodCondition{containers, ready} {
		// Only a change of status or reason is written: kwok's stages set
		// these conditions without messages or generations, and rewriting
		// every pod for that would only cost API writes.
		if old := findCondition(s, c.Type); old.Type == "" || old.Status != c.Status || old.Reason != c.Reason {
			c.ObservedGeneration = pod.Generation
			setCondition(s, c, now)
		}
	}
}

// unreadyGates says which of pod's readiness gates hold it back, in the
// kubelet's words, or "" when none does.
func unreadyGates(pod *corev1.Pod, s *corev1.PodStatus) string {
	var msgs []string
	for _, g := range pod.Spec.ReadinessGates {
		c := findCondition(s, g.ConditionType)
		switch {
		case c.Type == "":
			msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", g.ConditionType))
		case c.Status != corev1.ConditionTrue:
			msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", g.ConditionType, c.Status))
		}
	}
	return strings.Join(msgs, ", ")
}

// findCondition returns s's condition of type t, or a zero one.
func findCondition(s *corev1.PodStatus, t corev1.PodConditionType) corev1.PodCondition {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c
		}
	}
	return corev1.PodCondition{}
}

// setCondition sets c in s, replacing one of its type. The transition
// time is now unless the condition had the same status and reason before.
func setCondition(s *corev1.PodStatus, c corev1.PodCondition, now time.Time) {
	c.LastTransitionTime = metav1.NewTime(now)
	for i := range s.Conditions {
		old := &s.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status && old.Reason == c.Reason {
			c.LastTransitionTime, c.LastProbeTime = old.LastTransitionTime, old.LastProbeTime
		}
		*old = c
		return
	}
	s.Conditions = append(s.Conditions, c)
}

// removeCondition removes s's condition of type t, if any.
func removeCondition(s *corev1.PodStatus, t corev1.PodConditionType) {
	out := s.Conditions[:0]
	for _, c := range s.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	s.Conditions = out
}
