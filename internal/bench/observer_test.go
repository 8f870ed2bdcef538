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
	onNode := func(p *corev1.Pod, node string) *corev1.Pod { p.Spec.NodeName = node; return p }
	cases := []struct {
		name string
		pods []*corev1.Pod
		want map[string]desiredSet
		ok   bool
	}{
		{"all desired pods ready converge", []*corev1.Pod{benchPod("web-0", "web", imageV1, true), benchPod("web-1", "web", imageV1, true)},
			map[string]desiredSet{"web": {Replicas: 2, Image: imageV1}}, true},
		{"a missing pod does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true)}, map[string]desiredSet{"web": {Replicas: 2, Image: imageV1}}, false},
		{"an unready pod does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, false)}, map[string]desiredSet{"web": {Replicas: 1, Image: imageV1}}, false},
		{"an old image does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true)}, map[string]desiredSet{"web": {Replicas: 1, Image: imageV2}}, false},
		{"a surplus ordinal does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true), benchPod("web-1", "web", imageV1, true)},
			map[string]desiredSet{"web": {Replicas: 1, Image: imageV1}}, false},
		{"a terminating pod does not", []*corev1.Pod{benchPod("web-0", "web", imageV1, true), terminating},
			map[string]desiredSet{"web": {Replicas: 2, Image: imageV1}}, false},
		{"a pod of a deleted set does not", []*corev1.Pod{benchPod("old-0", "old", imageV1, true)}, map[string]desiredSet{}, false},
		{"no pods and no sets converge", nil, map[string]desiredSet{}, true},
		{"a pod on the node to avoid does not", []*corev1.Pod{onNode(benchPod("web-0", "web", imageV1, true), "n-1"),
			onNode(benchPod("web-1", "web", imageV1, true), "n-0")},
			map[string]desiredSet{"web": {Replicas: 2, Image: imageV1, AvoidNode: "n-0"}}, false},
		{"pods off the node to avoid converge", []*corev1.Pod{onNode(benchPod("web-0", "web", imageV1, true), "n-1"),
			onNode(benchPod("web-1", "web", imageV1, true), "n-2")},
			map[string]desiredSet{"web": {Replicas: 2, Image: imageV1, AvoidNode: "n-0"}}, true},
		{"a set without a node to avoid may be anywhere", []*corev1.Pod{onNode(benchPod("web-0", "web", imageV1, true), "n-0")},
			map[string]desiredSet{"web": {Replicas: 1, Image: imageV1}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := cache.NewStore(cache.MetaNamespaceKeyFunc)
			for _, p := range c.pods {
				if err := store.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			o := &observer{store: store, lag: newStatusLag()}
			if ok, why := o.converged(c.want); ok != c.ok {
				t.Errorf("converged = %v (%s), want %v", ok, why, c.ok)
			}
		})
	}
}

func TestTheObserverCountsEveryPodEventWhileRecordingAndFindsTheFirstWriteAfterATime(t *testing.T) {
	o := &observer{lag: newStatusLag()}
	old, marked := benchPod("web-0", "web", imageV1, true), benchPod("web-0", "web", imageV1, true)
	marked.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	o.noteWrite(time.Now(), true) // not recording: not counted
	o.onUpdate(old, old)
	o.record(true)
	before := time.Now()
	o.noteWrite(before.Add(time.Millisecond), true) // an add
	o.onUpdate(old, old)                            // a status update
	o.onUpdate(old, marked)                         // a deletion mark: one update, not two events
	o.note(func() { o.gone++; o.events++ })         // what DeleteFunc does
	if got := o.podEvents(); got != 4 {
		t.Errorf("pod events = %d, want 4 (add, update, mark, delete)", got)
	}
	if added, marks, gone := o.counts(); added != 1 || marks != 1 || gone != 1 {
		t.Errorf("counts = %d, %d, %d; want 1, 1, 1", added, marks, gone)
	}
	first, ok := o.firstWriteAfter(before)
	if !ok || !first.Equal(before.Add(time.Millisecond)) {
		t.Errorf("first write after = %v, %v; want the add at %v", first, ok, before.Add(time.Millisecond))
	}
	if _, ok := o.firstWriteAfter(time.Now().Add(time.Hour)); ok {
		t.Error("a write was found after the last one")
	}
}

func TestTheScalingScenariosRestartTheContenderAfterCreatingAndRolling(t *testing.T) {
	for _, c := range []struct {
		name, size string
		sizes      Sizes
	}{
		{ScenarioScaling, "1×1000", Sizes{}},
		{ScenarioScaling, "1×20000", Sizes{Replicas: 20000}},
		{ScenarioScalingSets, "1000×2", Sizes{}},
		{ScenarioScalingSets, "5000×3", Sizes{Sets: 5000, SetReplicas: 3}},
	} {
		sc, err := buildScenario(c.name, c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		if sc.size != c.size || !sc.restart || len(sc.setup) != 0 || len(sc.measured) != 2 ||
			sc.measured[0].name != "create" || sc.measured[1].name != "rollout" {
			t.Errorf("%s %+v: size %s, restart %v, setup %d, measured %d", c.name, c.sizes, sc.size, sc.restart, len(sc.setup), len(sc.measured))
		}
	}
}
