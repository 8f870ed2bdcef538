package planner_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// counts is the part of the status a table row checks.
type counts struct {
	Replicas, Ready, Available, Current, Updated int32
	CurrentRevision                              string
}

func countsOf(f fixture, st appsv1.StatefulSetStatus) counts {
	return counts{st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas, f.alias(st.CurrentRevision)}
}

func TestStatusCounts(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	slow := rollout(testgen.Replicas(3), testgen.MinReadySeconds(60))
	onDelete := rollout(testgen.Replicas(2), testgen.OnDelete())
	tests := []struct {
		name string
		f    fixture
		pods []*corev1.Pod
		want counts
	}{{
		name: "terminating pods count as replicas and ready but not as current or updated",
		f:    f,
		pods: []*corev1.Pod{f.pod(0), f.updated(1, testgen.Terminating(now)), f.updated(2, testgen.Pending()), f.pod(3), f.pod(4, testgen.NoPhase())},
		want: counts{Replicas: 4, Ready: 3, Available: 3, Current: 2, Updated: 1, CurrentRevision: "current"},
	}, {
		name: "a rolling deletion takes the pod out of currentReplicas at once",
		f:    f,
		pods: f.pods(0, 1, 2),
		want: counts{Replicas: 3, Ready: 3, Available: 3, Current: 2, CurrentRevision: "current"},
	}, {
		name: "the update revision becomes current once every pod is updated, ready and available",
		f:    f,
		pods: []*corev1.Pod{f.updated(0), f.updated(1), f.updated(2)},
		want: counts{Replicas: 3, Ready: 3, Available: 3, Current: 3, Updated: 3, CurrentRevision: "update"},
	}, {
		name: "promotion waits for minReadySeconds, not only readiness",
		f:    slow,
		pods: []*corev1.Pod{slow.updated(0), slow.updated(1), slow.updated(2, testgen.Ready(now.Add(-time.Second)))},
		want: counts{Replicas: 3, Ready: 3, Available: 2, Updated: 3, CurrentRevision: "current"},
	}, {
		name: "promotion waits for condemned pods to go",
		f:    f,
		pods: []*corev1.Pod{f.updated(0), f.updated(1), f.updated(2), f.updated(3)},
		want: counts{Replicas: 4, Ready: 4, Available: 4, Updated: 4, CurrentRevision: "current"},
	}, {
		name: "OnDelete sets promote the update revision too",
		f:    onDelete,
		pods: []*corev1.Pod{onDelete.updated(0), onDelete.updated(1)},
		want: counts{Replicas: 2, Ready: 2, Available: 2, Current: 2, Updated: 2, CurrentRevision: "update"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := planner.Compute(tt.f.input(tt.pods))
			if diff := cmp.Diff(tt.want, countsOf(tt.f, plan.Status)); diff != "" {
				t.Errorf("status mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusFields(t *testing.T) {
	f := rollout(testgen.Replicas(1), testgen.Generation(7))
	condition := appsv1.StatefulSetCondition{Type: "Progressing", Status: corev1.ConditionTrue, Reason: "External", LastTransitionTime: metav1.NewTime(testgen.Epoch)}
	f.set.Status.Conditions = []appsv1.StatefulSetCondition{condition}
	in := f.input([]*corev1.Pod{f.updated(0)})
	in.CollisionCount = 3
	want := appsv1.StatefulSetStatus{
		ObservedGeneration: 7, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
		CurrentRevision: f.upd.Name, UpdateRevision: f.upd.Name, CollisionCount: ptr.To[int32](3),
		Conditions: []appsv1.StatefulSetCondition{condition},
	}
	if diff := cmp.Diff(want, planner.Compute(in).Status); diff != "" {
		t.Errorf("status mismatch (-want +got):\n%s", diff)
	}
}

func TestDeletingSet(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Deleting(now))
	plan := planner.Compute(f.input(with(f.pods(0, 1, 5), f.pod(2, testgen.Failed()))))
	if len(plan.Steps) != 0 || len(plan.Waits) != 0 {
		t.Errorf("a set being deleted got steps %v waits %v", f.summary(plan), waitLines(plan))
	}
	if plan.Status.Replicas != 4 || plan.Status.CurrentReplicas != 4 {
		t.Errorf("a set being deleted still reports status: got %+v", plan.Status)
	}
}

func TestRequeueAfter(t *testing.T) {
	f := steady(testgen.Replicas(3), testgen.MinReadySeconds(30))
	tests := []struct {
		name string
		f    fixture
		pods []*corev1.Pod
		want time.Duration
	}{
		{"nothing to wait for when every pod is available", f, f.pods(0, 1, 2), 0},
		{"the earliest pod to become available, plus a second", f,
			[]*corev1.Pod{f.pod(0, testgen.Ready(now.Add(-10*time.Second))), f.pod(1, testgen.Ready(now.Add(-25*time.Second)))}, 6 * time.Second},
		{"pods that are not ready do not count", f, []*corev1.Pod{f.pod(0, testgen.NotReady(now))}, 0},
		{"without minReadySeconds there is no requeue", steady(testgen.Replicas(1)), []*corev1.Pod{f.pod(0, testgen.Ready(now))}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planner.Compute(tt.f.input(tt.pods)).RequeueAfter; got != tt.want {
				t.Errorf("RequeueAfter = %v, want %v", got, tt.want)
			}
		})
	}
}
