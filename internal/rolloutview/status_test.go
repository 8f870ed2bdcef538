package rolloutview

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/golden"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestRenderStatus(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		build  func() (*appsv1.StatefulSet, []*corev1.Pod)
		done   bool
		fails  bool
	}{
		{
			name: "a rollout midway shows the new pod starting and waits", golden: "status-midway.txt",
			build: func() (*appsv1.StatefulSet, []*corev1.Pod) {
				r := newRollout()
				return r.set, r.pods(testgen.NotReady(testgen.Epoch))
			},
		},
		{
			name: "a crash-looping pod at the update revision fails the rollout", golden: "status-failing.txt", fails: true,
			build: func() (*appsv1.StatefulSet, []*corev1.Pod) {
				r := newRollout()
				return r.set, r.pods(crashLooping)
			},
		},
		{
			name: "a terminating and a missing pod have their own cells", golden: "status-terminating.txt",
			build: func() (*appsv1.StatefulSet, []*corev1.Pod) {
				r := newRollout()
				return r.set, r.pods(terminating)[1:]
			},
		},
		{
			name: "a paused set shows the partition and what resume restores", golden: "status-paused.txt", done: true,
			build: func() (*appsv1.StatefulSet, []*corev1.Pod) {
				r := newRollout(testgen.Partition(2))
				r.set.Annotations = map[string]string{v1alpha1.PausedAnnotation: "0"}
				r.set.Status.ReadyReplicas = 3
				return r.set, r.pods()
			},
		},
		{
			name: "a complete rollout reads as kubectl's verdict", golden: "status-complete.txt", done: true,
			build: func() (*appsv1.StatefulSet, []*corev1.Pod) {
				r := newRollout()
				r.set.Status = appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3,
					CurrentRevision: r.newRev.Name, UpdateRevision: r.newRev.Name}
				pods := r.pods()
				for _, p := range pods {
					testgen.At(r.newRev)(p)
				}
				return r.set, pods
			},
		},
		{
			name: "an OnDelete set gets kubectl's error", golden: "status-ondelete.txt", done: true,
			build: func() (*appsv1.StatefulSet, []*corev1.Pod) {
				r := newRollout(testgen.OnDelete())
				return r.set, r.pods()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, pods := tt.build()
			snap := NewSnapshot(set, pods, "")
			var b strings.Builder
			RenderStatus(&b, snap)
			golden.Check(t, tt.golden, b.String())
			if snap.Done != tt.done || (snap.Failure != "") != tt.fails {
				t.Errorf("done=%v failure=%q, want done=%v failing=%v", snap.Done, snap.Failure, tt.done, tt.fails)
			}
		})
	}
}

func TestKubectlVerdict(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*appsv1.StatefulSet)
		done    bool
		message string
	}{
		{"an unobserved generation waits", func(s *appsv1.StatefulSet) { s.Generation = 2 }, false, "Waiting for statefulset spec update to be observed..."},
		{"missing ready pods are counted", func(s *appsv1.StatefulSet) { s.Status.ReadyReplicas = 1 }, false, "Waiting for 2 pods to be ready..."},
		{"updated pods are counted against the partition", func(s *appsv1.StatefulSet) { s.Status.ReadyReplicas = 3 }, false,
			"Waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated..."},
		{"partition 0 completes as a partitioned roll out", func(s *appsv1.StatefulSet) { s.Status.ReadyReplicas, s.Status.UpdatedReplicas = 3, 3 }, true,
			"partitioned roll out complete: 3 new pods have been updated..."},
		{"without a rollingUpdate block revisions are compared", func(s *appsv1.StatefulSet) {
			s.Status.ReadyReplicas, s.Spec.UpdateStrategy.RollingUpdate = 3, nil
		}, false, "waiting for statefulset rolling update to complete 1 pods at revision " + newRollout().newRev.Name + "..."},
		{"a nil replica count skips the ready check", func(s *appsv1.StatefulSet) {
			s.Spec.Replicas, s.Spec.UpdateStrategy.RollingUpdate.Partition = nil, ptr.To[int32](5)
		}, true, "partitioned roll out complete: 1 new pods have been updated..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := newRollout().set
			tt.mutate(set)
			done, msg, _ := kubectlVerdict(set)
			if done != tt.done || msg != tt.message {
				t.Errorf("got (%v, %q), want (%v, %q)", done, msg, tt.done, tt.message)
			}
		})
	}
}
