package nodecmd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/internal/drain"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

func TestFenceTaintsTheNodeAndSaysSo(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "up"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}})
	var out bytes.Buffer
	if err := run(context.Background(), &out, c, "n1", nodes.Fence, "node %s fenced\n"); err != nil {
		t.Fatal(err)
	}
	n, err := c.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Spec.Taints) != 1 || n.Spec.Taints[0] != nodes.OutOfServiceTaint {
		t.Errorf("taints %v, want the out-of-service taint", n.Spec.Taints)
	}
	if out.String() != "node n1 fenced\n" {
		t.Errorf("printed %q", out.String())
	}
	// Fencing twice leaves one taint.
	if err := run(context.Background(), &out, c, "n1", nodes.Fence, "%s"); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{}); len(n.Spec.Taints) != 1 {
		t.Errorf("fenced twice: taints %v", n.Spec.Taints)
	}
	out.Reset()
	if err := run(context.Background(), &out, c, "up", nodes.Fence, "%s"); !errors.Is(err, nodes.ErrReady) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("fencing a Ready node: %v, want ErrReady and a word about --force", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q for a refusal", out.String())
	}
}

func TestReplaceRefusesAnAfterOutOfRange(t *testing.T) {
	cmd := New()
	cmd.SetArgs([]string{"replace", "n1", "--after", "-1s"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--after -1s is out of range") {
		t.Errorf("error %v, want --after out of range", err)
	}
}

func TestFailRefusesANodeThatIsNotSimulated(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real"}})
	var out bytes.Buffer
	err := run(context.Background(), &out, c, "real", nodes.Fail, "%s")
	if !errors.Is(err, nodes.ErrNotSimulated) {
		t.Fatalf("error %v, want ErrNotSimulated", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q for a refusal", out.String())
	}
}

func TestDrainRefusesANegativeTimeout(t *testing.T) {
	cmd := New()
	cmd.SetArgs([]string{"drain", "n1", "--timeout", "-1s"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--timeout -1s is negative") {
		t.Errorf("error %v, want --timeout negative", err)
	}
}

func TestCordonAndUncordonSayWhatTheyDid(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	var out bytes.Buffer
	if err := run(context.Background(), &out, c, "n1", drain.Cordon, "node/%s cordoned\n"); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{}); !n.Spec.Unschedulable || out.String() != "node/n1 cordoned\n" {
		t.Errorf("unschedulable %v, printed %q", n.Spec.Unschedulable, out.String())
	}
}
