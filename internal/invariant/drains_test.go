package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A controller delete of a Ready pod at the update revision is the
// rolling update's mistake, unless the pod's node was being drained: an
// extended set moves its pods off a cordoned node (nodeDrainPolicy Move).
// The checker sees the drain only when it watches nodes.
func TestADeleteOffADrainedNodeIsNotTheUpdates(t *testing.T) {
	cordoned := mkNode("n1", corev1.ConditionTrue)
	cordoned.Spec.Unschedulable = true
	tainted := mkNode("n1", corev1.ConditionTrue, corev1.Taint{Key: "ToBeDeletedByClusterAutoscaler", Effect: corev1.TaintEffectNoSchedule})
	for _, tc := range []struct {
		name  string
		nodes bool
		node  *corev1.Node
		want  []Rule
	}{
		{name: "off a cordoned node it is a move", nodes: true, node: cordoned},
		{name: "off a node the autoscaler is draining it is a move", nodes: true, node: tainted},
		{name: "off a node nobody drains it breaks updated-delete", nodes: true, node: mkNode("n1", corev1.ConditionTrue), want: []Rule{RuleUpdatedDelete}},
		{name: "without node facts the drain is not known", node: cordoned, want: []Rule{RuleUpdatedDelete}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{opts: Options{Nodes: tc.nodes}}
			h.add(0, added, mkExt(3)).add(0.05, added, mkNode("n1", corev1.ConditionTrue))
			for i := range int32(3) {
				h.add(0.1+float64(i), added, mkPod(i, "a", onNode("n1"))).add(0.5+float64(i), modified, mkPod(i, "a", ready, onNode("n1")))
			}
			h.add(10, modified, tc.node)
			h.add(12, modified, mkPod(1, "a", ready, onNode("n1"), terminating))
			if diff := cmp.Diff(tc.want, h.rules()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

// A controller delete of a Ready pod at the update revision, on a node
// nobody drains, is the set's answer to an eviction request when an
// Eviction of the pod made the controller its active responder within
// the window: not when the responder was another, nor for another pod.
func TestADeleteAnEvictionRequestAsksForIsNotTheUpdates(t *testing.T) {
	asking := func(uid types.UID, state lifecyclev1alpha1.ResponderStateType) *lifecyclev1alpha1.Eviction {
		return &lifecyclev1alpha1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "pod-x", Namespace: "ns", UID: "ev-" + uid},
			Spec: lifecyclev1alpha1.EvictionSpec{Target: lifecyclev1alpha1.EvictionTarget{Pod: &lifecyclev1alpha1.EvictionPodReference{Name: "web-1", UID: uid}}},
			Status: lifecyclev1alpha1.EvictionStatus{TargetResponders: []lifecyclev1alpha1.TargetResponder{
				{Name: "apps.ordinal.dev/statefulset-controller", State: state}, {Name: "imperative-eviction.k8s.io/evictor", State: "Inactive"}}}}
	}
	pod1 := mkPod(1, "a", ready, onNode("n1"))
	for _, tc := range []struct {
		name      string
		evictions bool
		eviction  *lifecyclev1alpha1.Eviction
		want      []Rule
	}{
		{name: "the controller active: a move", evictions: true, eviction: asking(pod1.UID, "Active")},
		{name: "the controller not yet active: the update's mistake", evictions: true, eviction: asking(pod1.UID, "Inactive"), want: []Rule{RuleUpdatedDelete}},
		{name: "another pod's eviction: the update's mistake", evictions: true, eviction: asking("other", "Active"), want: []Rule{RuleUpdatedDelete}},
		{name: "without evictions watched it is not known", eviction: asking(pod1.UID, "Active"), want: []Rule{RuleUpdatedDelete}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{opts: Options{Nodes: true, Evictions: tc.evictions}}
			h.add(0, added, mkExt(3)).add(0.05, added, mkNode("n1", corev1.ConditionTrue))
			for i := range int32(3) {
				h.add(0.1+float64(i), added, mkPod(i, "a", onNode("n1"))).add(0.5+float64(i), modified, mkPod(i, "a", ready, onNode("n1")))
			}
			if tc.evictions {
				h.add(10, added, tc.eviction)
			}
			h.add(12, modified, mkPod(1, "a", ready, onNode("n1"), terminating))
			if diff := cmp.Diff(tc.want, h.rules()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}
