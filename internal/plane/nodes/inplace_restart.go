package nodes

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Event reasons of the kubelet (pkg/kubelet/events), so that `kubectl
// describe` reads the same.
const (
	eventKilling = "Killing"
	eventPulled  = "Pulled"
	eventCreated = "Created"
	eventStarted = "Started"
	eventBackOff = "BackOff"
)

// restart kills the container cs reports and starts spec's in its place,
// as a kubelet does for a changed image or a resize that needs a restart:
// a running old instance becomes lastState (exit 0 on SIGTERM; a waiting
// one keeps the lastState it has), the new one has
// a new container ID, the spec's image and its ID, one more restart, and
// runs from now, started but not Ready until the ready delay has passed.
// why says what changed, for the Killing event.
func restart(pod *corev1.Pod, spec *corev1.Container, cs *corev1.ContainerStatus, now time.Time, why string) []podEvent {
	at := metav1.NewTime(now)
	if cs.State.Running != nil {
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Reason: "Completed", StartedAt: cs.State.Running.StartedAt, FinishedAt: at, ContainerID: cs.ContainerID,
		}}
	}
	cs.RestartCount++
	pull := pulled(spec.Image, cs.Image)
	cs.Image, cs.ImageID = spec.Image, ImageID(spec.Image)
	cs.ContainerID = ContainerID(pod.UID, spec.Name, cs.RestartCount)
	cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}}
	cs.Ready, cs.Started = false, new(true)
	return []podEvent{
		{corev1.EventTypeNormal, eventKilling, fmt.Sprintf("Container %s, will be restarted", why)},
		pull,
		{corev1.EventTypeNormal, eventCreated, "Created container: " + spec.Name},
		{corev1.EventTypeNormal, eventStarted, "Started container " + spec.Name},
	}
}

// settle turns each container that runs but is not Ready, and was started
// by the simulated kubelet (restartCount above 0), Ready once the ready
// delay since its start has passed. A pod whose behaviour is never-ready
// keeps it unready; one whose restarted containers crash (see
// podSim.restartedCrashes) gets it exited with code 1 and in
// CrashLoopBackOff instead. after is the wait until the next such step.
func settle(pod *corev1.Pod, s *corev1.PodStatus, sim podSim, now time.Time) (plan podPlan) {
	if sim.behavior == BehaviorNeverReady {
		return podPlan{}
	}
	for i := range s.ContainerStatuses {
		cs := &s.ContainerStatuses[i]
		if cs.Ready || cs.State.Running == nil || cs.RestartCount == 0 {
			continue
		}
		if left := cs.State.Running.StartedAt.Add(sim.readyDelay).Sub(now); left > 0 {
			plan.after = soonest(plan.after, left)
			continue
		}
		if sim.restartedCrashes() {
			plan.events = append(plan.events, crash(cs, now, sim.crashCause()))
			continue
		}
		cs.Ready = true
	}
	return plan
}

// pulled is the Pulled event of starting image where old ran before.
func pulled(image, old string) podEvent {
	if image == old {
		return podEvent{corev1.EventTypeNormal, eventPulled, fmt.Sprintf("Container image %q already present on machine", image)}
	}
	return podEvent{corev1.EventTypeNormal, eventPulled, fmt.Sprintf("Successfully pulled image %q in 0s (simulated)", image)}
}

// crash records cs's running instance as exited with code 1 and the
// container as waiting in CrashLoopBackOff, restarted once more.
func crash(cs *corev1.ContainerStatus, now time.Time, cause string) podEvent {
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 1, Reason: "Error", StartedAt: cs.State.Running.StartedAt, FinishedAt: metav1.NewTime(now), ContainerID: cs.ContainerID,
	}}
	cs.RestartCount++
	cs.Started = new(false)
	cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason:  "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off 10s restarting failed container=%s (simulated by %s)", cs.Name, cause),
	}}
	return podEvent{corev1.EventTypeWarning, eventBackOff, "Back-off restarting failed container " + cs.Name}
}
