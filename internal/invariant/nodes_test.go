package invariant

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// mkNode is node name, labelled with its name as hostname, whose Ready
// condition has readyStatus ("" for none).
func mkNode(name string, readyStatus corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
	return mkHostNode(name, name, readyStatus, taints...)
}

// mkHostNode is mkNode with hostname label host.
func mkHostNode(name, host string, readyStatus corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-uid-" + name), Labels: map[string]string{corev1.LabelHostname: host}},
		Spec: corev1.NodeSpec{Taints: taints}}
	if readyStatus != "" {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: readyStatus}}
	}
	return n
}

var fence = corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}

// mkLocalVolume is volume pv-<ord>, pinned to node.
func mkLocalVolume(ord int32, node string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + itoa(ord), UID: "pv-uid"},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}}
}

func policy(p v1alpha1.NodeFailurePolicy) extOpt {
	return func(s *v1alpha1.StatefulSet) { s.Spec.NodeFailurePolicy = &p }
}

func onNode(node string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = node } }

func TestForceDeletionRules(t *testing.T) {
	replace := policy(v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](5)})
	cases := []struct {
		name  string
		nodes bool
		set   []extOpt
		node  *corev1.Node
		pod   []podOpt
		ext   bool // the test deleted it
		// direct: DELETED without a terminating version before it.
		direct bool
		want   []Rule
	}{
		{name: "seen only as DELETED, it is judged too", node: mkNode("n1", corev1.ConditionUnknown), direct: true,
			want: []Rule{RuleForceDeletePolicy}},
		{name: "a running pod force-deleted by a set without replaceAfterSeconds breaks the policy rule", node: mkNode("n1", corev1.ConditionUnknown),
			want: []Rule{RuleForceDeletePolicy}},
		{name: "with replaceAfterSeconds, from a node that is not Ready, it is allowed", set: []extOpt{replace}, node: mkNode("n1", corev1.ConditionUnknown), nodes: true},
		{name: "from a Ready node it breaks the live-node rule, policy or not", set: []extOpt{replace}, node: mkNode("n1", corev1.ConditionTrue), nodes: true,
			want: []Rule{RuleForceDeleteLive}},
		{name: "so it does from a node whose kubelet answers NotReady (Ready False)", set: []extOpt{replace}, node: mkNode("n1", corev1.ConditionFalse), nodes: true,
			want: []Rule{RuleForceDeleteLive}},
		{name: "and from a node without a Ready condition", set: []extOpt{replace}, node: mkNode("n1", ""), nodes: true,
			want: []Rule{RuleForceDeleteLive}},
		{name: "without node facts the live-node rule is not judged", set: []extOpt{replace}, node: mkNode("n1", corev1.ConditionTrue)},
		{name: "a pod deleted by someone else is not judged", node: mkNode("n1", corev1.ConditionTrue), ext: true, nodes: true},
		{name: "a pod marked Failed first (the pod garbage collector) is not a force deletion", node: mkNode("n1", corev1.ConditionTrue),
			pod: []podOpt{failed}, nodes: true},
		{name: "a pod with a grace period of 0 is deleted at once by any delete", node: mkNode("n1", corev1.ConditionTrue), nodes: true,
			pod: []podOpt{func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](0) }}},
		{name: "an unscheduled pod is deleted at once by any delete", node: mkNode("n1", corev1.ConditionTrue), nodes: true,
			pod: []podOpt{onNode("")}},
		{name: "so may be a pod just bound, not yet Running, when the delete raced its binding", node: mkNode("n1", corev1.ConditionTrue), nodes: true,
			direct: true, pod: []podOpt{func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{opts: Options{Nodes: tc.nodes}}
			h.add(0, added, mkExt(1, tc.set...)).add(0.5, added, mkNode("n1", corev1.ConditionTrue))
			pod := mkPod(0, "a", append([]podOpt{ready, onNode("n1")}, tc.pod...)...)
			gone := pod.DeepCopy()
			gone.DeletionTimestamp, gone.DeletionGracePeriodSeconds = &metav1.Time{Time: t0}, ptr.To[int64](0)
			h.add(1, added, pod).add(20, modified, tc.node)
			if tc.direct {
				h.add(30, deleted, pod)
			} else {
				// As the API server shows a force delete: a terminating
				// version with grace 0, then DELETED.
				h.add(30, modified, gone).add(30, deleted, gone)
			}
			if tc.ext {
				h.external(pod.UID)
			}
			got := h.rules()
			if diff := cmp.Diff(tc.want, forceRules(got)); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if tc.want == nil && tc.set != nil && len(got) > 0 {
				t.Errorf("a force deletion the policy allows broke %v", got)
			}
		})
	}
}

// forceRules are the force-deletion rules among rules: a deletion the
// policy does not explain is judged by the deletion rules too.
func forceRules(rules []Rule) []Rule {
	var out []Rule
	for _, r := range rules {
		if r == RuleForceDeletePolicy || r == RuleForceDeleteLive {
			out = append(out, r)
		}
	}
	return out
}

func withClaims(s *v1alpha1.StatefulSet) {
	s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
}

// The node-failure clause of claim-deleted judges a claim's host by the
// hostname label nodes carry, never by a node's name, and, with the
// quarantine, over the quarantine before the deletion.
func TestClaimDeletedForALostHost(t *testing.T) {
	recreate := policy(v1alpha1.NodeFailurePolicy{Volumes: v1alpha1.RecreateNodeFailureVolumes})
	n1 := func(ready corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
		return mkHostNode("n1.example", "h1", ready, taints...)
	}
	type change struct {
		sec  float64
		node *corev1.Node
		gone bool
	}
	cases := []struct {
		name       string
		set        []extOpt
		quarantine time.Duration
		changes    []change // to node n1.example (host h1) or others, before the deletion at 60s
		want       []Rule
	}{
		{name: "under Recreate, a claim on a NotReady and fenced host may be deleted", set: []extOpt{recreate},
			changes: []change{{sec: 20, node: n1(corev1.ConditionUnknown, fence)}}},
		{name: "and one on a host no node carries", set: []extOpt{recreate}, changes: []change{{sec: 20, node: n1(""), gone: true}}},
		{name: "but not one on a host whose node is only NotReady", set: []extOpt{recreate},
			changes: []change{{sec: 20, node: n1(corev1.ConditionUnknown)}}, want: []Rule{RuleClaimDeleted}},
		{name: "nor one on a Ready node that carries the out-of-service taint", set: []extOpt{recreate},
			changes: []change{{sec: 20, node: n1(corev1.ConditionTrue, fence)}}, want: []Rule{RuleClaimDeleted}},
		{name: "nor one on a live node whose name is not its hostname (the host is a label)", set: []extOpt{recreate},
			want: []Rule{RuleClaimDeleted}},
		{name: "nor, without Recreate, one on a fenced host", changes: []change{{sec: 20, node: n1(corev1.ConditionUnknown, fence)}},
			want: []Rule{RuleClaimDeleted}},
		{name: "with a quarantine, not one on a host lost for less", set: []extOpt{recreate}, quarantine: 30 * time.Second,
			changes: []change{{sec: 45, node: n1(""), gone: true}}, want: []Rule{RuleClaimDeleted}},
		{name: "but one lost for longer", set: []extOpt{recreate}, quarantine: 30 * time.Second,
			changes: []change{{sec: 20, node: n1(""), gone: true}}},
		{name: "nor one whose node was deleted and registered again with its label within the quarantine", set: []extOpt{recreate}, quarantine: 30 * time.Second,
			changes: []change{{sec: 20, node: n1(""), gone: true}, {sec: 40, node: n1(corev1.ConditionTrue)}, {sec: 45, node: n1(""), gone: true}},
			want:    []Rule{RuleClaimDeleted}},
		{name: "but one whose node registered again under its name as another host (its label) is lost all the same", set: []extOpt{recreate}, quarantine: 30 * time.Second,
			changes: []change{{sec: 20, node: n1(""), gone: true}, {sec: 22, node: mkHostNode("n1.example", "h9", corev1.ConditionTrue)}}},
		{name: "nor one deleted before the watch saw the quarantine", set: []extOpt{recreate}, quarantine: 90 * time.Second,
			changes: []change{{sec: 1, node: n1(""), gone: true}}, want: []Rule{RuleClaimDeleted}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{opts: Options{Nodes: true, Quarantine: tc.quarantine}}
			h.add(0, added, mkExt(1, append(tc.set, withClaims)...)).add(0.5, added, n1(corev1.ConditionTrue)).add(0.6, added, mkLocalVolume(0, "h1"))
			claim := mkClaim(0)
			h.add(1, added, claim)
			for _, c := range tc.changes {
				switch {
				case c.gone:
					h.add(c.sec, deleted, c.node)
				default:
					h.add(c.sec, modified, c.node)
				}
			}
			h.add(60, modified, mkClaim(0, claimDeleting))
			if diff := cmp.Diff(tc.want, h.rules()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}
