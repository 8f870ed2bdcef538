package bench

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func benchPod(name, set, image string, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: benchNamespace, Labels: map[string]string{setLabel: set}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
		Status:     corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

func TestConvergedNeedsExactlyTheDesiredReadyPods(t *testing.T) {
	terminating := benchPod("web-1", "web", imageV1, true)
	terminating.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	cases := []struct {
		name string
		pods []*corev1.Pod
		want map[string]desiredSet
		ok   bool
	}{
		{"all desired pods ready converge", []*corev1.Pod{benchPod("web-0", "web", imageV1, true), benchPod("web-1", "web", imageV1, true)},
			map[string]desiredSet{"web": {2, imageV1}}, true},
		{"a missing pod does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true)}, map[string]desiredSet{"web": {2, imageV1}}, false},
		{"an unready pod does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, false)}, map[string]desiredSet{"web": {1, imageV1}}, false},
		{"an old image does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true)}, map[string]desiredSet{"web": {1, imageV2}}, false},
		{"a surplus ordinal does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true), benchPod("web-1", "web", imageV1, true)},
			map[string]desiredSet{"web": {1, imageV1}}, false},
		{"a terminating pod does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true), terminating},
			map[string]desiredSet{"web": {2, imageV1}}, false},
		{"a pod of a deleted set does not", []*corev1.Pod{benchPod("old-0", "old", imageV1, true)}, map[string]desiredSet{}, false},
		{"no pods and no sets converge", nil, map[string]desiredSet{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := cache.NewStore(cache.MetaNamespaceKeyFunc)
			for _, p := range c.pods {
				if err := store.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			o := &observer{store: store}
			if ok, why := o.converged(c.want); ok != c.ok {
				t.Errorf("converged = %v (%s), want %v", ok, why, c.ok)
			}
		})
	}
}
