package nodecmd

import (
	"bytes"
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

func TestFenceTaintsTheNodeAndSaysSo(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
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
