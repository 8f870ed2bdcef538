package plane_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/pki"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// kubeletClient is a client with a kubelet's credentials for node: a
// certificate of the plane's authority for user system:node:NODE in group
// system:nodes, issued in a directory of the test's.
func kubeletClient(t *testing.T, node string) kubernetes.Interface {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"ca.crt", "ca.key"} {
		raw, err := os.ReadFile(filepath.Join(planetest.DataDir(), "pki", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ca, err := pki.LoadOrCreateAuthority(dir, "ordinal-ca")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(pki.Identity{Name: "kubelet", CommonName: "system:node:" + node, Groups: []string{"system:nodes"}})
	if err != nil {
		t.Fatal(err)
	}
	return kubernetes.NewForConfigOrDie(&rest.Config{Host: planetest.Plane().Server(),
		TLSClientConfig: rest.TLSClientConfig{CAFile: ca.CAFile(), CertFile: pair.CertFile, KeyFile: pair.KeyFile}})
}

// The plane authorizes as real clusters do (Node,RBAC, with the
// NodeRestriction admission plugin): a kubelet's credentials reach what
// its node's pods need and modify its own Node, and are refused another
// node's object, another node's pods and secrets no pod of its node
// mounts. The simulated nodes, which act for every node at once, are not
// held to one (their nodes start and run pods throughout these tests).
func TestAKubeletsCredentialsAreHeldToItsOwnNode(t *testing.T) {
	ctx, ns := namespace(t)
	admin := planetest.Client()
	own, other := nodes.NodeName(1), nodes.NodeName(0)
	for _, name := range []string{"mounted", "unmounted"} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"k": "v"}}
		if _, err := admin.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for name, node := range map[string]string{"mine": own, "theirs": other} {
		p := simplePod(name, nil)
		p.Spec.NodeName = node
		p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "mounted"}}}}
		if name == "theirs" {
			p.Spec.Volumes = nil
		}
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"mine", "theirs"} {
		poll(t, ctx, "the simulated node running pod "+name, func() bool {
			p, err := admin.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning
		})
	}
	kubelet := kubeletClient(t, own)
	annotate := []byte(`{"metadata":{"annotations":{"ordinal.dev/test-kubelet":"` + own + `"}}}`)

	poll(t, ctx, "the Node authorizer letting the kubelet read the secret its pod mounts", func() bool {
		_, err := kubelet.CoreV1().Secrets(ns).Get(ctx, "mounted", metav1.GetOptions{})
		return err == nil
	})
	if _, err := kubelet.CoreV1().Nodes().Patch(ctx, own, types.MergePatchType, annotate, metav1.PatchOptions{}); err != nil {
		t.Errorf("the kubelet patching its own node: %v", err)
	}
	t.Cleanup(func() {
		_, _ = admin.CoreV1().Nodes().Patch(context.Background(), own, types.MergePatchType,
			[]byte(`{"metadata":{"annotations":{"ordinal.dev/test-kubelet":null}}}`), metav1.PatchOptions{})
	})

	refused := []struct {
		what string
		do   func() error
		says string
	}{
		{"patching another node", func() error {
			_, err := kubelet.CoreV1().Nodes().Patch(ctx, other, types.MergePatchType, annotate, metav1.PatchOptions{})
			return err
		}, `node "` + own + `" is not allowed to modify node "` + other + `"`},
		{"reading a secret no pod of its node mounts", func() error {
			_, err := kubelet.CoreV1().Secrets(ns).Get(ctx, "unmounted", metav1.GetOptions{})
			return err
		}, "no relationship found between node '" + own + "' and this object"},
		{"listing secrets", func() error {
			_, err := kubelet.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
			return err
		}, "cannot list resource"},
		{"deleting a pod of another node", func() error {
			return kubelet.CoreV1().Pods(ns).Delete(ctx, "theirs", metav1.DeleteOptions{})
		}, "can only delete pods with spec.nodeName set to itself"},
	}
	for _, r := range refused {
		if err := r.do(); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), r.says) {
			t.Errorf("the kubelet of %s %s: %v, want Forbidden: %s", own, r.what, err, r.says)
		}
	}
}
