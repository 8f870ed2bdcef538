package realnode

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// The real kubelet's credentials (user system:node:ordinal-real-0 in group
// system:nodes) are held to its node by the Node authorizer and the
// NodeRestriction admission plugin, as on a real cluster: it may annotate
// its own Node, and is refused a simulated node's and a secret that no
// pod of its node mounts.
func TestTheRealKubeletCannotModifyAnotherNode(t *testing.T) {
	n := node(t)
	ctx, ns := namespace(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(shared.DataDir(), "pki", "real-node-kubelet.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	kubelet := kubernetes.NewForConfigOrDie(cfg)
	annotate := func(node string, value any) error {
		patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{"ordinal.dev/test-kubelet": value}}}
		raw, _ := json.Marshal(patch)
		_, err := kubelet.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, raw, metav1.PatchOptions{})
		return err
	}
	if err := annotate(n.Name(), n.Name()); err != nil {
		t.Errorf("the kubelet annotating its own node %s: %v", n.Name(), err)
	}
	t.Cleanup(func() { _ = annotate(n.Name(), nil) })

	other := nodes.NodeName(0)
	err = annotate(other, n.Name())
	if want := `node "` + n.Name() + `" is not allowed to modify node "` + other + `"`; !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("the kubelet of %s patching the simulated node %s: %v, want Forbidden: %s", n.Name(), other, err, want)
	}

	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unmounted"}, StringData: map[string]string{"k": "v"}}
	if _, err := client.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = kubelet.CoreV1().Secrets(ns).Get(ctx, "unmounted", metav1.GetOptions{})
	if want := "no relationship found between node '" + n.Name() + "' and this object"; !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("the kubelet reading a secret no pod of its node mounts: %v, want Forbidden: %s", err, want)
	}
}
