package nodes

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// simNode is a simulated node called name whose Ready condition has
// status ready ("" for none).
func simNode(name string, ready corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
	n := newNode(name, name)
	n.Spec.Taints = taints
	if ready != "" {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}, {Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}}
	}
	return n
}

func getNode(t *testing.T, c *fake.Clientset, name string) *corev1.Node {
	t.Helper()
	n, err := c.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The last FQDN nodes are named by a fully qualified name whose first
// label is their hostname label, which every node keeps.
func TestFQDNNodesAreNamedByTheirDNSNameAndLabelledByTheirHostname(t *testing.T) {
	want := []string{"ordinal-node-0", "ordinal-node-1.nodes.ordinal.internal", "ordinal-node-2.nodes.ordinal.internal"}
	if diff := cmp.Diff(want, Names(3, 2)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	c := fake.NewClientset()
	if err := registerNodes(context.Background(), c, 3, 2, 0); err != nil {
		t.Fatal(err)
	}
	for i, name := range want {
		if got := getNode(t, c, name).Labels[corev1.LabelHostname]; got != Hostname(i) {
			t.Errorf("node %s has hostname label %q, want %q", name, got, Hostname(i))
		}
	}
}

// The out-of-service taint says a node is shut down: fencing refuses a
// Ready node unless forced, and fences one that is not Ready.
func TestFenceRefusesAReadyNodeUnlessForced(t *testing.T) {
	c := fake.NewClientset(simNode("up", corev1.ConditionTrue), simNode("down", corev1.ConditionUnknown), simNode("never", ""))
	if err := Fence(context.Background(), c, "up"); !errors.Is(err, ErrReady) {
		t.Errorf("fencing a Ready node: error %v, want ErrReady", err)
	}
	if taints := getNode(t, c, "up").Spec.Taints; len(taints) != 0 {
		t.Errorf("a refused fence left taints %v", taints)
	}
	for _, name := range []string{"down", "never"} {
		if err := Fence(context.Background(), c, name); err != nil {
			t.Errorf("fencing %s: %v", name, err)
		}
	}
	if err := ForceFence(context.Background(), c, "up"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"up", "down", "never"} {
		if taints := getNode(t, c, name).Spec.Taints; len(taints) != 1 || taints[0] != OutOfServiceTaint {
			t.Errorf("node %s has taints %v, want the out-of-service taint", name, taints)
		}
	}
}

// A replaced node is registered again under its name with the labels and
// the taints it registered with, and a new Lease to come; a new hostname
// makes it another machine.
func TestAReplacedNodeRegistersAgainWithItsOwnLabelsAndTaints(t *testing.T) {
	group := corev1.Taint{Key: "example.com/group", Value: "a", Effect: corev1.TaintEffectNoSchedule}
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}
	old := simNode("n1", corev1.ConditionUnknown, group, unreachable, OutOfServiceTaint)
	old.Labels["zone"] = "z1"
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "n1", Namespace: leaseNamespace}}
	c := fake.NewClientset(old, lease)
	if err := Replace(context.Background(), c, "n1", ReplaceOptions{}); err != nil {
		t.Fatal(err)
	}
	n := getNode(t, c, "n1")
	if n.Labels["zone"] != "z1" || n.Labels[corev1.LabelHostname] != "n1" || n.Annotations[managedAnnotation] != "fake" {
		t.Errorf("registered again with labels %v annotations %v", n.Labels, n.Annotations)
	}
	if diff := cmp.Diff([]corev1.Taint{group}, n.Spec.Taints); diff != "" {
		t.Errorf("taints (-want +got):\n%s", diff)
	}
	if len(n.Status.Conditions) != 0 {
		t.Errorf("a new node has conditions %v before its kubelet reports", n.Status.Conditions)
	}
	if _, err := c.CoordinationV1().Leases(leaseNamespace).Get(context.Background(), "n1", metav1.GetOptions{}); err == nil {
		t.Error("the old node's Lease is still there")
	}
	if err := Replace(context.Background(), c, "n1", ReplaceOptions{Hostname: "other"}); err != nil {
		t.Fatal(err)
	}
	if got := getNode(t, c, "n1").Labels[corev1.LabelHostname]; got != "other" {
		t.Errorf("hostname label %q, want other", got)
	}
}

// A node without a Ready condition is one whose kubelet never reported:
// its heartbeats stop, and only the Ready condition goes.
func TestDropReadyConditionLeavesANodeWithoutOne(t *testing.T) {
	c := fake.NewClientset(simNode("n1", corev1.ConditionTrue))
	if err := DropReadyCondition(context.Background(), c, "n1"); err != nil {
		t.Fatal(err)
	}
	conds := getNode(t, c, "n1").Status.Conditions
	if len(conds) != 1 || conds[0].Type != corev1.NodeMemoryPressure {
		t.Errorf("conditions %v, want the memory pressure one alone", conds)
	}
	if failed, err := Failed(context.Background(), c, "n1"); err != nil || !failed {
		t.Errorf("failed %t (%v), want its heartbeats stopped", failed, err)
	}
}
