package nodes

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// allocated records the resize to 300m/400m cpu as accepted at t0, for
// generation 2.
func allocated() podOpt {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses[0].AllocatedResources = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")}
		withCondition(corev1.PodCondition{Type: corev1.PodResizeInProgress, Status: corev1.ConditionTrue, ObservedGeneration: 2,
			LastTransitionTime: metav1.NewTime(t0)})(p)
	}
}

// pending records a resize as pending for reason (Deferred or
// Infeasible) at generation gen, as planPod writes it.
func pending(reason string, gen int64) podOpt {
	value := map[string]string{corev1.PodReasonDeferred: ResizeDeferred, corev1.PodReasonInfeasible: ResizeInfeasible}[reason]
	return withCondition(corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: reason,
		Message: "simulated by " + AnnotationResize + "=" + value, ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(t0)})
}

func TestPlanPodResize(t *testing.T) {
	sim := podSim{readyDelay: 3 * time.Second, resizeDelay: time.Second}
	conds := func(extra ...string) map[corev1.PodConditionType]string {
		m := map[corev1.PodConditionType]string{corev1.ContainersReady: "True//0", corev1.PodReady: "True//0"}
		for i := 0; i < len(extra); i += 2 {
			m[corev1.PodConditionType(extra[i])] = extra[i+1]
		}
		return m
	}
	base := summary{Image: oldImage, ImageID: ImageID(oldImage), Ready: true, State: "running since 0s", ObservedGenerationOK: true}
	with := func(f func(*summary)) summary {
		s := base
		f(&s)
		return s
	}
	runPlanCases(t, sim, []planCase{
		{name: "an accepted resize is allocated and in progress for the resize delay", pod: runningPod(withCPU("300m", "400m")), now: 10 * time.Second,
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "300m", "100m", "200m"
				s.Conditions, s.Events, s.After = conds("PodResizeInProgress", "True//2"), []string{eventResizeStarted}, time.Second
			})},
		{name: "a resize in progress waits for the resize delay", pod: runningPod(withCPU("300m", "400m"), allocated()), now: 500 * time.Millisecond,
			want: with(func(s *summary) {
				s.Allocated, s.Running, s.RunningLimit, s.After = "300m", "100m", "200m", 500*time.Millisecond
				s.Conditions = conds("PodResizeInProgress", "True//2")
			})},
		{name: "a resize in progress completes after the delay without a restart", pod: runningPod(withCPU("300m", "400m"), allocated()), now: time.Second,
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "300m", "300m", "400m"
				s.Conditions, s.Events = conds(), []string{eventResizeCompleted}
			})},
		{name: "a resize of a resource whose policy is RestartContainer restarts the container",
			pod: runningPod(withCPU("300m", "400m"), withPolicy(corev1.ResourceCPU, corev1.RestartContainer)), sim: func(s *podSim) { s.resizeDelay = 0 },
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit, s.Restarts, s.Ready, s.ContainerIDChanged = true, "300m", "300m", "400m", 1, false, true
				s.Conditions = map[corev1.PodConditionType]string{corev1.ContainersReady: "False/ContainersNotReady/2", corev1.PodReady: "False/ContainersNotReady/2"}
				s.Events = append(append([]string{eventResizeStarted}, restartEvents...), eventResizeCompleted)
				s.After = 3 * time.Second
			})},
		{name: "a RestartContainer policy of a resource that did not change restarts nothing",
			pod: runningPod(withCPU("300m", "400m"), withPolicy(corev1.ResourceMemory, corev1.RestartContainer)), sim: func(s *podSim) { s.resizeDelay = 0 },
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "300m", "300m", "400m"
				s.Conditions, s.Events = conds(), []string{eventResizeStarted, eventResizeCompleted}
			})},
		{name: "a deferred resize is pending, allocation unchanged", pod: runningPod(withCPU("300m", "400m")), sim: func(s *podSim) { s.resize = ResizeDeferred },
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "100m", "100m", "200m"
				s.Conditions, s.Events = conds("PodResizePending", "True/Deferred/2"), []string{eventResizeDeferred}
			})},
		{name: "an infeasible resize is pending", pod: runningPod(withCPU("300m", "400m")), sim: func(s *podSim) { s.resize = ResizeInfeasible },
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "100m", "100m", "200m"
				s.Conditions, s.Events = conds("PodResizePending", "True/Infeasible/2"), []string{eventResizeInfeasible}
			})},
		{name: "a deferred resize already recorded for this generation is not written again",
			pod: runningPod(withCPU("300m", "400m"), pending(corev1.PodReasonDeferred, 2)), sim: func(s *podSim) { s.resize = ResizeDeferred }, now: time.Hour,
			want: with(func(s *summary) {
				s.Allocated, s.Running, s.RunningLimit = "100m", "100m", "200m"
				s.Conditions = conds("PodResizePending", "True/Deferred/2")
			})},
		{name: "a deferred resize turning infeasible changes the reason", pod: runningPod(withCPU("300m", "400m"), pending(corev1.PodReasonDeferred, 2)),
			sim: func(s *podSim) { s.resize = ResizeInfeasible },
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "100m", "100m", "200m"
				s.Conditions, s.Events = conds("PodResizePending", "True/Infeasible/2"), []string{eventResizeInfeasible}
			})},
		{name: "a pending resize is accepted once the annotation is gone", pod: runningPod(withCPU("300m", "400m"), pending(corev1.PodReasonDeferred, 2)),
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit = true, "300m", "100m", "200m"
				s.Conditions, s.Events, s.After = conds("PodResizeInProgress", "True//2"), []string{eventResizeStarted}, time.Second
			})},
		{name: "a pending condition without a resize to wait for is removed", pod: runningPod(pending(corev1.PodReasonDeferred, 1)),
			sim: func(s *podSim) { s.resize = ResizeDeferred },
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit, s.Conditions = true, "100m", "100m", "200m", conds()
			})},
		{name: "a container without reported resources is taken to run with its spec's",
			pod: runningPod(withStatus(func(cs *corev1.ContainerStatus) { cs.Resources, cs.AllocatedResources = nil, nil })),
			want: with(func(s *summary) {
				s.Written, s.Allocated, s.Running, s.RunningLimit, s.Conditions = true, "100m", "100m", "200m", conds()
			})},
	})
}
