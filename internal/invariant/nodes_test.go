package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func mkNode(name string, readyStatus corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-uid-" + name)},
		Spec:   corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: readyStatus}}}}
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

func TestClaimDeletedForALostNode(t *testing.T) {
	recreate := policy(v1alpha1.NodeFailurePolicy{Volumes: v1alpha1.RecreateNodeFailureVolumes})
	cases := []struct {
		name string
		set  []extOpt
		node *corev1.Node // the volume's node at the deletion; nil: deleted
		want []Rule
	}{
		{name: "under Recreate, a claim on a fenced node may be deleted", set: []extOpt{recreate}, node: mkNode("n1", corev1.ConditionUnknown, fence)},
		{name: "and one on a deleted node", set: []extOpt{recreate}},
		{name: "but not one on a node that is only NotReady", set: []extOpt{recreate}, node: mkNode("n1", corev1.ConditionUnknown),
			want: []Rule{RuleClaimDeleted}},
		{name: "nor, without Recreate, one on a fenced node", node: mkNode("n1", corev1.ConditionUnknown, fence),
			want: []Rule{RuleClaimDeleted}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{opts: Options{Nodes: true}}
			h.add(0, added, mkExt(1, append(tc.set, withClaims)...)).add(0.5, added, mkNode("n1", corev1.ConditionTrue)).add(0.6, added, mkLocalVolume(0, "n1"))
			claim := mkClaim(0)
			h.add(1, added, claim)
			if tc.node == nil {
				h.add(20, deleted, mkNode("n1", corev1.ConditionUnknown))
			} else {
				h.add(20, modified, tc.node)
			}
			h.add(30, modified, mkClaim(0, claimDeleting))
			if diff := cmp.Diff(tc.want, h.rules()); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}
