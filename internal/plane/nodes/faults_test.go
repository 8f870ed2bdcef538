package nodes

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func lostPod(name string, change func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionFalse}}}}
	if change != nil {
		change(p)
	}
	return p
}

func TestARestoredNodeReportsOnlyItsPodsThatLostReadinessReadyAgain(t *testing.T) {
	gated := lostPod("gated", func(p *corev1.Pod) { p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "x"}} })
	crashing := lostPod("crashing", func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse })
	deleting := lostPod("deleting", func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} })
	c := fake.NewClientset(lostPod("lost", nil), gated, crashing, deleting)
	if err := readyAgain(context.Background(), c, "n1"); err != nil {
		t.Fatal(err)
	}
	want := map[string]corev1.ConditionStatus{"lost": corev1.ConditionTrue, "gated": corev1.ConditionFalse,
		"crashing": corev1.ConditionFalse, "deleting": corev1.ConditionFalse}
	for name, status := range want {
		p, err := c.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := condition(p, corev1.PodReady); got != status {
			t.Errorf("pod %s is Ready %s, want %s", name, got, status)
		}
	}
}
