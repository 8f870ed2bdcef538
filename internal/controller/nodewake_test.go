package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setkind"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A node's change wakes the extended sets with pods on it when what
// their plans judge of it changed — its Ready condition, the
// out-of-service taint, a cordon — and nothing else: not a heartbeat, not
// another node's change. A Ready condition that disappears changes no pod
// (the node lifecycle controller waits out its startup grace period), so
// without this wake the set's status would say nothing of the node for a
// minute.
func TestANodeWakesTheExtendedSetsOnItWhenItsJudgedStateChanges(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(1))
	ext, err := testgen.Extended(set)
	if err != nil {
		t.Fatal(err)
	}
	pod := testgen.Pod(set, 0)
	pod.Spec.NodeName = "n1"
	pod.OwnerReferences[0].APIVersion = v1alpha1.SchemeGroupVersion.String()
	c := startTestController(t, likeAnAPIServer(fake.NewClientset(pod)), ext)
	waitCached(t, "web-0", func() bool { return len(c.podIdx.List()) == 1 })
	key := setkind.Extended.Key(testgen.Namespace, "web")
	queued(c)

	ready := func(name string, status corev1.ConditionStatus, beat time.Time) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)}}
		if status != "" {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status,
				LastHeartbeatTime: metav1.NewTime(beat), LastTransitionTime: metav1.NewTime(testgen.Epoch)}}
		}
		return n
	}
	fenced := ready("n1", corev1.ConditionTrue, testgen.Epoch)
	fenced.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}}
	cordoned := ready("n1", corev1.ConditionTrue, testgen.Epoch)
	cordoned.Spec.Unschedulable = true
	was := ready("n1", corev1.ConditionTrue, testgen.Epoch)
	for _, tc := range []struct {
		name string
		cur  *corev1.Node
		wake bool
	}{
		{"a heartbeat", ready("n1", corev1.ConditionTrue, testgen.Epoch.Add(time.Minute)), false},
		{"its Ready condition gone", ready("n1", "", testgen.Epoch), true},
		{"Ready False", ready("n1", corev1.ConditionFalse, testgen.Epoch), true},
		{"Ready Unknown", ready("n1", corev1.ConditionUnknown, testgen.Epoch), true},
		{"the out-of-service taint", fenced, true},
		{"a cordon", cordoned, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.nodeStateChanged(was, tc.cur)
			if got := queued(c)[key]; got != tc.wake {
				t.Errorf("web woken: %v, want %v", got, tc.wake)
			}
			other := tc.cur.DeepCopy()
			other.Name = "n2"
			c.nodeStateChanged(ready("n2", corev1.ConditionTrue, testgen.Epoch), other)
			if got := queued(c); len(got) != 0 {
				t.Errorf("the change of a node without the set's pods woke %v", got)
			}
		})
	}
}
