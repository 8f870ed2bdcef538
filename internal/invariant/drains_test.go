package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
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

// Without spec.disruptionBudget an eviction of a quorum member, or of a
// leader whose switchover is under way, is the set's to answer for when
// an eviction request went through it: an Eviction made the controller
// its active responder, and none of the reasons to decline held (the
// checker re-derives them). Otherwise the eviction is the user's budgets'
// business, as without any request.
func TestAnEvictionTheSetWasAskedForIsJudgedWithoutABudget(t *testing.T) {
	asked := func(uid types.UID) *lifecyclev1alpha1.Eviction {
		return &lifecyclev1alpha1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "ev-" + string(uid), Namespace: ns, UID: "ev-" + uid},
			Spec: lifecyclev1alpha1.EvictionSpec{Target: lifecyclev1alpha1.EvictionTarget{Pod: &lifecyclev1alpha1.EvictionPodReference{Name: "web-0", UID: uid}}},
			Status: lifecyclev1alpha1.EvictionStatus{TargetResponders: []lifecyclev1alpha1.TargetResponder{
				{Name: "apps.ordinal.dev/statefulset-controller", State: lifecyclev1alpha1.ResponderStateActive}}}}
	}
	withClaim := func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-0"}}})
	}
	networkVolume := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-0", UID: "pv-uid"}}
	// quorumLost: web-1 is killed at 20 and gone; web-0 is evicted at 40.
	quorumLost := func(opts Options, set []extOpt, eviction bool, pod []podOpt, more func(*history)) *history {
		h := &history{opts: opts}
		h.add(0, added, mkExt(3, append([]extOpt{extRevisions("web-r1", "web-r2"), extParallel, extMaxUnavailable(3), extRoles(true)}, set...)...))
		h.add(0.05, added, mkNode("n1", corev1.ConditionTrue))
		roles := [3]string{"follower", "follower", "leader"}
		for ord := int32(0); ord < 3; ord++ {
			h.add(0.1+float64(ord), added, mkPod(ord, "a", append([]podOpt{ready, role(roles[ord]), onNode("n1")}, pod...)...))
		}
		if more != nil {
			more(h)
		}
		h.external("web-1-a")
		h.external("web-0-a")
		h.add(20, modified, mkPod(1, "a", ready, role("follower"), onNode("n1"), terminating)).add(20.5, deleted, mkPod(1, "a", ready, role("follower"), onNode("n1"), terminating))
		if eviction {
			h.add(30, added, asked("web-0-a"))
		}
		return h.add(40, modified, mkPod(0, "a", append([]podOpt{ready, role("follower"), onNode("n1"), evictedNow, terminating}, pod...)...))
	}
	watched := Options{Nodes: true, Evictions: true}
	for _, tc := range []struct {
		name string
		h    *history
		want []Rule
	}{
		{name: "asked through the set, the set answers for the quorum: quorum-floor",
			h: quorumLost(watched, nil, true, nil, nil), want: []Rule{RuleQuorumFloor}},
		{name: "not asked through the set: the user's budgets' business",
			h: quorumLost(watched, nil, false, nil, nil)},
		{name: "without evictions watched the request is not known",
			h: quorumLost(Options{Nodes: true}, nil, true, nil, nil)},
		{name: "without nodes watched a Ready node cannot be shown",
			h: quorumLost(Options{Evictions: true}, nil, true, nil, nil)},
		{name: "under nodeDrainPolicy Ignore the set declines",
			h: quorumLost(watched, []extOpt{func(s *v1alpha1.StatefulSet) { s.Spec.NodeDrainPolicy = v1alpha1.NodeDrainIgnore }}, true, nil, nil)},
		{name: "while paused the set declines",
			h: quorumLost(watched, []extOpt{extPaused}, true, nil, nil)},
		{name: "while the pod's node was not Ready the set declines",
			h: quorumLost(watched, nil, true, nil, func(h *history) {
				h.add(35, modified, mkNode("n1", corev1.ConditionUnknown)).add(36, modified, mkNode("n1", corev1.ConditionTrue))
			})},
		{name: "a claim on a local volume of the node: the set declines",
			h: quorumLost(watched, nil, true, []podOpt{withClaim}, func(h *history) {
				h.add(0.06, added, mkLocalVolume(0, "n1")).add(0.07, added, mkClaim(0))
			})},
		{name: "a claim on network storage: quorum-floor",
			h: quorumLost(watched, nil, true, []podOpt{withClaim}, func(h *history) {
				h.add(0.06, added, networkVolume).add(0.07, added, mkClaim(0))
			}), want: []Rule{RuleQuorumFloor}},
		{name: "a claim the checker never saw bound: not judged",
			h: quorumLost(watched, nil, true, []podOpt{withClaim}, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.h.rules()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("asked through the set, a leader evicted while its switchover is under way: switchover-evict", func(t *testing.T) {
		for _, request := range []bool{true, false} {
			h := &history{opts: watched}
			h.add(0, added, mkExt(3, extRevisions("web-r1", "web-r2"), extParallel, extMaxUnavailable(3), extRoles(false), extSwitchover(v1alpha1.HookHalt)))
			h.add(0.05, added, mkNode("n1", corev1.ConditionTrue))
			for ord, r := range []string{"leader", "follower", "follower"} {
				h.add(0.1+float64(ord), added, mkPod(int32(ord), "a", ready, role(r), onNode("n1")))
			}
			h.external("web-0-a")
			if request {
				h.add(4, added, asked("web-0-a"))
			}
			h.add(5, modified, mkPod(0, "a", ready, role("leader"), onNode("n1"), switching(v1alpha1.HookPending, "leader")))
			h.add(20, modified, mkPod(0, "a", ready, role("leader"), onNode("n1"), switching(v1alpha1.HookPending, "leader"), evictedNow, terminating))
			var want []Rule
			if request {
				want = []Rule{RuleSwitchoverEvict}
			}
			if diff := cmp.Diff(want, h.rules()); diff != "" {
				t.Errorf("request %v: rules (-want +got):\n%s", request, diff)
			}
		}
	})
}
