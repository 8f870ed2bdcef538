package nodes

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// summary is what a test looks at in a plan: the container's state, the
// pod's conditions (type: status/reason/generation), the event reasons
// and the requeue delay.
type summary struct {
	Written              bool
	Image, ImageID       string
	Restarts             int32
	Ready                bool
	State                string
	Allocated, Running   string // cpu request
	RunningLimit         string // cpu limit
	Conditions           map[corev1.PodConditionType]string
	Events               []string
	After                time.Duration
	ContainerIDChanged   bool
	ObservedGenerationOK bool
}

func summarize(pod *corev1.Pod, plan podPlan) summary {
	s := &pod.Status
	if plan.status != nil {
		s = plan.status
	}
	cs := s.ContainerStatuses[0]
	out := summary{
		Written: plan.status != nil, Image: cs.Image, ImageID: cs.ImageID, Restarts: cs.RestartCount, Ready: cs.Ready,
		Allocated: cs.AllocatedResources.Cpu().String(), After: plan.after, Conditions: map[corev1.PodConditionType]string{},
		ContainerIDChanged:   cs.ContainerID != pod.Status.ContainerStatuses[0].ContainerID,
		ObservedGenerationOK: plan.status == nil || plan.status.ObservedGeneration == pod.Generation,
	}
	if cs.Resources != nil {
		out.Running, out.RunningLimit = cs.Resources.Requests.Cpu().String(), cs.Resources.Limits.Cpu().String()
	}
	switch {
	case cs.State.Running != nil:
		out.State = "running since " + cs.State.Running.StartedAt.Sub(t0).String()
	case cs.State.Waiting != nil:
		out.State = "waiting " + cs.State.Waiting.Reason
	}
	for _, c := range s.Conditions {
		out.Conditions[c.Type] = string(c.Status) + "/" + c.Reason + "/" + string(rune('0'+c.ObservedGeneration))
	}
	for _, e := range plan.events {
		out.Events = append(out.Events, e.reason)
	}
	return out
}

// planCase is a pod, changes to the test's podSim, and the time to plan
// at (after t0), with the summary of the plan wanted.
type planCase struct {
	name string
	pod  *corev1.Pod
	sim  func(*podSim)
	now  time.Duration
	want summary
}

func runPlanCases(t *testing.T, sim podSim, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sim
			if tc.sim != nil {
				tc.sim(&s)
			}
			got := summarize(tc.pod, planPod(tc.pod, s, t0.Add(tc.now)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

var restartEvents = []string{eventKilling, eventPulled, eventCreated, eventStarted}

func TestPlanPod(t *testing.T) {
	sim := podSim{readyDelay: 3 * time.Second, resizeDelay: time.Second}
	ready := map[corev1.PodConditionType]string{corev1.ContainersReady: "True//0", corev1.PodReady: "True//0"}
	notReady := func(gen int) map[corev1.PodConditionType]string {
		g := string(rune('0' + gen))
		return map[corev1.PodConditionType]string{corev1.ContainersReady: "False/ContainersNotReady/" + g, corev1.PodReady: "False/ContainersNotReady/" + g}
	}
	readyAgain := map[corev1.PodConditionType]string{corev1.ContainersReady: "True//2", corev1.PodReady: "True//2"}
	unchanged := summary{Image: oldImage, ImageID: ImageID(oldImage), Ready: true, State: "running since 0s", Allocated: "100m",
		Running: "100m", RunningLimit: "200m", Conditions: ready, ObservedGenerationOK: true}
	runPlanCases(t, sim, []planCase{
		{name: "a running pod whose spec matches its status is not written", pod: runningPod(), now: time.Hour, want: unchanged},
		{name: "a pod kwok has not started yet is left to kwok", pod: runningPod(withImage(newImage), inPhase(corev1.PodPending)), want: unchanged},
		{name: "an image change restarts the container, not Ready, looked at again after the ready delay",
			pod: runningPod(withImage(newImage)), now: 10 * time.Second,
			want: summary{Written: true, Image: newImage, ImageID: ImageID(newImage), Restarts: 1, State: "running since 10s", Allocated: "100m",
				Running: "100m", RunningLimit: "200m", Conditions: notReady(2), Events: restartEvents, After: 3 * time.Second,
				ContainerIDChanged: true, ObservedGenerationOK: true}},
		{name: "a restarted container waits for the ready delay",
			pod: runningPod(withImage(newImage), restartedAt(t0)), now: time.Second,
			want: summary{Image: newImage, ImageID: ImageID(newImage), Restarts: 1, State: "running since 0s", Allocated: "100m",
				Running: "100m", RunningLimit: "200m", Conditions: notReady(2), After: 2 * time.Second, ObservedGenerationOK: true}},
		{name: "a restarted container turns Ready after the ready delay",
			pod: runningPod(withImage(newImage), restartedAt(t0)), now: 3 * time.Second,
			want: summary{Written: true, Image: newImage, ImageID: ImageID(newImage), Restarts: 1, Ready: true, State: "running since 0s", Allocated: "100m",
				Running: "100m", RunningLimit: "200m", Conditions: readyAgain, ObservedGenerationOK: true}},
		{name: "a failed in-place start crash-loops after the ready delay", sim: func(s *podSim) { s.startFails = true },
			pod: runningPod(withImage(newImage), restartedAt(t0)), now: 3 * time.Second,
			want: summary{Written: true, Image: newImage, ImageID: ImageID(newImage), Restarts: 2, State: "waiting CrashLoopBackOff", Allocated: "100m",
				Running: "100m", RunningLimit: "200m", Conditions: notReady(2), Events: []string{eventBackOff}, ObservedGenerationOK: true}},
		{name: "a never-ready pod's restarted container stays unready", sim: func(s *podSim) { s.behavior = BehaviorNeverReady },
			pod: runningPod(withImage(newImage), restartedAt(t0)), now: time.Hour,
			want: summary{Image: newImage, ImageID: ImageID(newImage), Restarts: 1, State: "running since 0s", Allocated: "100m",
				Running: "100m", RunningLimit: "200m", Conditions: notReady(2), ObservedGenerationOK: true}},
	})
}

func TestPlanPodLeavesATerminatingPodAlone(t *testing.T) {
	pod := runningPod(withImage(newImage))
	pod.DeletionTimestamp = &metav1.Time{Time: t0}
	if plan := planPod(pod, podSim{}, t0); plan.status != nil || plan.events != nil || plan.after != 0 {
		t.Errorf("plan %+v for a terminating pod, want none", plan)
	}
}
