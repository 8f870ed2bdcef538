package nodes

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestReadyFollowsContainersAndReadinessGates(t *testing.T) {
	const gate = "example.com/gate"
	gateIs := func(st corev1.ConditionStatus) podOpt {
		return withCondition(corev1.PodCondition{Type: gate, Status: st})
	}
	for _, tc := range []struct {
		name        string
		pod         *corev1.Pod
		wantWritten bool
		want        corev1.PodCondition // Ready's status, reason and message
	}{
		{"no gates: Ready as the containers are", runningPod(), false, corev1.PodCondition{Status: corev1.ConditionTrue}},
		{"a gate whose condition is missing holds Ready False", runningPod(withGate(gate)), true, corev1.PodCondition{
			Status: corev1.ConditionFalse, Reason: reasonReadinessGatesNotReady,
			Message: `corresponding condition of pod readiness gate "example.com/gate" does not exist.`}},
		{"a gate whose condition is False holds Ready False", runningPod(withGate(gate), gateIs(corev1.ConditionFalse)), true, corev1.PodCondition{
			Status: corev1.ConditionFalse, Reason: reasonReadinessGatesNotReady,
			Message: `the status of pod readiness gate "example.com/gate" is not "True", but False`}},
		{"a gate whose condition is True lets the pod be Ready", runningPod(withGate(gate), gateIs(corev1.ConditionTrue)), false,
			corev1.PodCondition{Status: corev1.ConditionTrue}},
		{"unready containers come before gates", runningPod(withGate(gate), withStatus(func(cs *corev1.ContainerStatus) { cs.Ready = false })), true,
			corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonContainersNotReady, Message: "containers with unready status: [db]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := planPod(tc.pod, podSim{}, t0.Add(time.Minute))
			s := &tc.pod.Status
			if plan.status != nil {
				s = plan.status
			}
			r := findCondition(s, corev1.PodReady)
			got := corev1.PodCondition{Status: r.Status, Reason: r.Reason, Message: r.Message}
			if diff := cmp.Diff(tc.want, got); diff != "" || (plan.status != nil) != tc.wantWritten {
				t.Errorf("Ready (-want +got):\n%s\nwritten %v, want %v", diff, plan.status != nil, tc.wantWritten)
			}
		})
	}
}

func TestAConditionKeepsItsTransitionTimeWhileItsStatusAndReasonStay(t *testing.T) {
	s := &corev1.PodStatus{}
	setCondition(s, corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: "Deferred"}, t0)
	setCondition(s, corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: "Deferred", ObservedGeneration: 3}, t0.Add(time.Minute))
	if c := findCondition(s, corev1.PodResizePending); !c.LastTransitionTime.Time.Equal(t0) || c.ObservedGeneration != 3 || len(s.Conditions) != 1 {
		t.Errorf("after a same-reason update: %+v, want the first transition time and generation 3, once", s.Conditions)
	}
	setCondition(s, corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: "Infeasible"}, t0.Add(time.Minute))
	if c := findCondition(s, corev1.PodResizePending); !c.LastTransitionTime.Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("after a new reason: transition time %v, want %v", c.LastTransitionTime, t0.Add(time.Minute))
	}
}
