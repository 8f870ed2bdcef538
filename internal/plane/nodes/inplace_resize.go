package nodes

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// Event reasons of a kubelet's in-place resize (pkg/kubelet/events).
const (
	eventResizeStarted    = "ResizeStarted"
	eventResizeCompleted  = "ResizeCompleted"
	eventResizeDeferred   = "ResizeDeferred"
	eventResizeInfeasible = "ResizeInfeasible"
)

// planResize carries a resize one step, as a kubelet does. A resize is
// pending while some container's spec resources differ from what it runs
// with (containerStatuses[].resources) or was allocated
// (containerStatuses[].allocatedResources). The steps:
//   - deferred or infeasible (AnnotationResize): condition PodResizePending
//     with that reason and the pod's generation, allocation unchanged;
//   - accepted: allocatedResources become the spec's requests, condition
//     PodResizeInProgress (generation of the accepted spec), event
//     ResizeStarted;
//   - after the resize delay: resources become the spec's, a container
//     whose resizePolicy says RestartContainer for a changed resource is
//     restarted, the condition is removed, event ResizeCompleted.
func planResize(pod *corev1.Pod, s *corev1.PodStatus, sim podSim, now time.Time) podPlan {
	changed := adoptOrDiffer(pod, s)
	if len(changed) == 0 {
		removeCondition(s, corev1.PodResizePending)
		removeCondition(s, corev1.PodResizeInProgress)
		return podPlan{}
	}
	if sim.resize != "" {
		return podPlan{events: pend(pod, s, sim, now)}
	}
	removeCondition(s, corev1.PodResizePending)
	plan := podPlan{events: allocate(pod, s, changed, now)}
	started := findCondition(s, corev1.PodResizeInProgress).LastTransitionTime
	if left := started.Add(sim.resizeDelay).Sub(now); left > 0 {
		plan.after = left
		return plan
	}
	plan.events = append(plan.events, actuate(pod, s, changed, now)...)
	return plan
}

// adoptOrDiffer returns the spec containers whose resources differ from
// their status. A running container whose status has neither resources nor
// allocatedResources (started before the simulated nodes reported them)
// is taken to run with its spec's, without a resize.
func adoptOrDiffer(pod *corev1.Pod, s *corev1.PodStatus) []*corev1.Container {
	var out []*corev1.Container
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs := statusOf(s, c.Name)
		switch {
		case cs == nil:
		case cs.Resources == nil && cs.AllocatedResources == nil:
			cs.Resources, cs.AllocatedResources = c.Resources.DeepCopy(), c.Resources.Requests.DeepCopy()
		case !apiequality.Semantic.DeepEqual(&c.Resources, cs.Resources) ||
			!apiequality.Semantic.DeepEqual(c.Resources.Requests, cs.AllocatedResources):
			out = append(out, c)
		}
	}
	return out
}

// pend records a resize the node does not accept. Like a kubelet, it
// records an event only when the condition is new or its reason or
// generation changed.
func pend(pod *corev1.Pod, s *corev1.PodStatus, sim podSim, now time.Time) []podEvent {
	reason, event := corev1.PodReasonDeferred, eventResizeDeferred
	if sim.resize == ResizeInfeasible {
		reason, event = corev1.PodReasonInfeasible, eventResizeInfeasible
	}
	msg := fmt.Sprintf("simulated by %s=%s", AnnotationResize, sim.resize)
	old := findCondition(s, corev1.PodResizePending)
	setCondition(s, corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue,
		Reason: reason, Message: msg, ObservedGeneration: pod.Generation}, now)
	if old.Type != "" && old.Reason == reason && old.ObservedGeneration == pod.Generation {
		return nil
	}
	return []podEvent{{corev1.EventTypeWarning, event, resizeMessage(pod, "Pod resize "+reason, msg)}}
}

// allocate accepts the spec's resources for changed: allocatedResources
// become its requests and PodResizeInProgress is set. A new allocation
// of a later generation restarts the condition, as a kubelet clears and
// sets it again; otherwise an existing one is kept as it is.
func allocate(pod *corev1.Pod, s *corev1.PodStatus, changed []*corev1.Container, now time.Time) []podEvent {
	moved := false
	for _, c := range changed {
		cs := statusOf(s, c.Name)
		if !apiequality.Semantic.DeepEqual(c.Resources.Requests, cs.AllocatedResources) {
			cs.AllocatedResources, moved = c.Resources.Requests.DeepCopy(), true
		}
	}
	old := findCondition(s, corev1.PodResizeInProgress)
	if old.Type != "" && (!moved || old.ObservedGeneration == pod.Generation) {
		return nil
	}
	removeCondition(s, corev1.PodResizeInProgress)
	setCondition(s, corev1.PodCondition{Type: corev1.PodResizeInProgress, Status: corev1.ConditionTrue,
		ObservedGeneration: pod.Generation}, now)
	return []podEvent{{corev1.EventTypeNormal, eventResizeStarted, resizeMessage(pod, "Pod resize started", "")}}
}

// actuate makes changed run with their spec's resources, restarting those
// whose resizePolicy asks for it, and ends the resize.
func actuate(pod *corev1.Pod, s *corev1.PodStatus, changed []*corev1.Container, now time.Time) []podEvent {
	var events []podEvent
	for _, c := range changed {
		cs := statusOf(s, c.Name)
		if needsRestart(c, cs.Resources) {
			events = append(events, restart(pod, c, cs, now, c.Name+" resize requires restart")...)
		}
		cs.Resources = c.Resources.DeepCopy()
	}
	removeCondition(s, corev1.PodResizeInProgress)
	return append(events, podEvent{corev1.EventTypeNormal, eventResizeCompleted, resizeMessage(pod, "Pod resize completed", "")})
}

// needsRestart reports whether a resource that differs between c's spec
// and running has resize policy RestartContainer. A resource without a
// policy is resized without a restart (the API server defaults it to
// NotRequired).
func needsRestart(c *corev1.Container, running *corev1.ResourceRequirements) bool {
	if running == nil {
		running = &corev1.ResourceRequirements{}
	}
	for _, p := range c.ResizePolicy {
		if p.RestartPolicy != corev1.RestartContainer {
			continue
		}
		if !sameQuantity(c.Resources.Requests, running.Requests, p.ResourceName) ||
			!sameQuantity(c.Resources.Limits, running.Limits, p.ResourceName) {
			return true
		}
	}
	return false
}

func sameQuantity(a, b corev1.ResourceList, name corev1.ResourceName) bool {
	qa, oka := a[name]
	qb, okb := b[name]
	return oka == okb && qa.Cmp(qb) == 0
}

// resizeMessage is a kubelet's resize event message: prefix, then the
// containers' spec resources and the generation as JSON, with detail as
// its error.
func resizeMessage(pod *corev1.Pod, prefix, detail string) string {
	type container struct {
		Name      string                      `json:"name"`
		Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	}
	summary := struct {
		Containers []container `json:"containers,omitempty"`
		Generation int64       `json:"generation"`
		Error      string      `json:"error,omitempty"`
	}{Generation: pod.Generation, Error: detail}
	for _, c := range pod.Spec.Containers {
		summary.Containers = append(summary.Containers, container{c.Name, c.Resources})
	}
	b, err := json.Marshal(summary)
	if err != nil {
		return prefix
	}
	return prefix + ": " + string(b)
}
