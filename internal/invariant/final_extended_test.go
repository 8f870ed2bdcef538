package invariant

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func convergedExtendedSnapshot() Snapshot {
	set := mkExt(2)
	set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	set.Status = v1alpha1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2,
		CurrentReplicas: 2, UpdatedReplicas: 2, UpdatedReadyReplicas: 2, UpdatedAvailableReplicas: 2,
		CurrentRevision: "web-r1", UpdateRevision: "web-r1", LastCompletedRevision: "web-r1", LabelSelector: "app=web",
		Conditions: []metav1.Condition{
			{Type: v1alpha1.ConditionAvailable, Status: metav1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
			{Type: v1alpha1.ConditionProgressing, Status: metav1.ConditionTrue, Reason: "RolloutComplete"},
		}}
	return Snapshot{
		Now:       t0.Add(60e9),
		Extended:  []v1alpha1.StatefulSet{*set},
		Pods:      []corev1.Pod{*mkPod(0, "a", ready), *mkPod(1, "a", ready)},
		Revisions: []appsv1.ControllerRevision{*mkRev("web-r1")},
	}
}

func TestCheckFinalOfAnExtendedSet(t *testing.T) {
	if v := CheckFinal(convergedExtendedSnapshot(), Options{}); len(v) != 0 {
		t.Fatalf("a consistent status was reported: %v", v)
	}
	cases := []struct {
		name   string
		change func(*v1alpha1.StatefulSetStatus)
	}{
		{"an updatedReadyReplicas the pods disagree with", func(s *v1alpha1.StatefulSetStatus) { s.UpdatedReadyReplicas = 1 }},
		{"an updatedAvailableReplicas the pods disagree with", func(s *v1alpha1.StatefulSetStatus) { s.UpdatedAvailableReplicas = 0 }},
		{"a readyReplicas the pods disagree with", func(s *v1alpha1.StatefulSetStatus) { s.ReadyReplicas = 1 }},
		{"a labelSelector other than the selector", func(s *v1alpha1.StatefulSetStatus) { s.LabelSelector = "" }},
		{"a complete rollout without its last completed revision", func(s *v1alpha1.StatefulSetStatus) { s.LastCompletedRevision = "web-r0" }},
		{"condition Available False with every pod available", func(s *v1alpha1.StatefulSetStatus) {
			s.Conditions[0].Status = metav1.ConditionFalse
		}},
		{"a complete rollout without condition Progressing", func(s *v1alpha1.StatefulSetStatus) { s.Conditions = s.Conditions[:1] }},
	}
	for _, tc := range cases {
		t.Run(tc.name+" breaks the status rule", func(t *testing.T) {
			snap := convergedExtendedSnapshot()
			tc.change(&snap.Extended[0].Status)
			v := CheckFinal(snap, Options{})
			if len(v) != 1 || v[0].Rule != RuleStatus {
				t.Errorf("got %v, want one %s violation", v, RuleStatus)
			}
		})
	}
}
