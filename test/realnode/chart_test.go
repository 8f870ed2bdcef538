package realnode

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/cli/doctor"
	"github.com/ordinal-sh/ordinal/internal/cli/exit"
	"github.com/ordinal-sh/ordinal/internal/image"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// The controller's image and release, as the tests install them.
const (
	controllerRepository = "ghcr.io/ordinal-sh/ordinal-controller"
	controllerTag        = "realnode-test"
	chartNamespace       = "ordinal-system"
	helmModule           = "helm.sh/helm/v4/cmd/helm@v4.3.1"
)

// chartValues put the chart's controller on the real node, from the image
// imported there.
const chartValues = `replicas: 1
image:
  repository: ` + controllerRepository + `
  tag: ` + controllerTag + `
  pullPolicy: Never
nodeSelector:
  ordinal.dev/real-node: "true"
tolerations:
- {key: ordinal.dev/real-node, operator: Exists, effect: NoSchedule}
`

// installController builds the controller's image here, imports it into
// the real node and installs charts/ordinal with the pinned Helm CLI, as a
// user would on a cluster (the plane runs no StatefulSet controller of its
// own); it returns once the controller's Deployment is available.
func installController(ctx context.Context, dir string) error {
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	began := time.Now()
	res, err := image.Build(ctx, image.Options{Dir: root, Platforms: []image.Platform{{OS: "linux", Arch: runtime.GOARCH}},
		Repository: controllerRepository, Tag: controllerTag, Created: time.Unix(0, 0).UTC(), Out: filepath.Join(dir, "image"), Name: "ordinal-controller"})
	if err != nil {
		return fmt.Errorf("building the controller's image: %w", err)
	}
	if err := shared.RealNode().ImportImage(ctx, res.Archive, controllerRepository); err != nil {
		return err
	}
	fmt.Printf("controller image built and imported (%s)\n", time.Since(began).Round(time.Millisecond))
	values := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(values, []byte(chartValues), 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "run", helmModule, "install", "ordinal", filepath.Join(root, "charts", "ordinal"),
		"--namespace", chartNamespace, "--create-namespace", "--kubeconfig", shared.KubeconfigPath(), "--values", values, "--wait", "--timeout", "4m")
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(dir, "helm", "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(dir, "helm", "config"), "HELM_DATA_HOME="+filepath.Join(dir, "helm", "data"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("helm install: %w\n%s", err, out.String())
	}
	fmt.Printf("chart installed, controller available (%s)\n", time.Since(began).Round(time.Millisecond))
	return nil
}

// The chart's controller runs as a real pod on the real node, from the
// image built here, reaching the API server through the kubernetes
// Service; it manages a set on the simulated nodes too (the plane runs no
// StatefulSet controller of its own), and `ordinal doctor` passes.
func TestTheChartsControllerRunsOnTheRealNodeAndManagesSimulatedSetsToo(t *testing.T) {
	n := node(t)
	ctx, ns := namespace(t)
	pods, err := client.CoreV1().Pods(chartNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=ordinal-controller"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 {
		t.Fatalf("%d controller pods, want 1", len(pods.Items))
	}
	p := pods.Items[0]
	cs := p.Status.ContainerStatuses
	if p.Spec.NodeName != n.Name() || !ready(&p) || len(cs) != 1 || !strings.HasPrefix(cs[0].ContainerID, "containerd://") ||
		cs[0].Image != controllerRepository+":"+controllerTag {
		t.Errorf("controller pod %s: node %q, ready %v, containers %+v", p.Name, p.Spec.NodeName, ready(&p), cs)
	}

	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "sim"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](3), ServiceName: "sim",
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "sim"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "sim"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{corev1.LabelHostname: nodes.Hostname(1)},
					Containers:   []corev1.Container{{Name: "app", Image: "registry.k8s.io/nginx-slim:0.8"}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "www"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}},
		},
	}
	if _, err := client.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSetStatus(ctx, t, ns, "sim", func(s appsv1.StatefulSetStatus) bool { return s.ReadyReplicas == 3 && s.ObservedGeneration == 1 })

	var code int
	var out, errOut bytes.Buffer
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(context.Context) (bool, error) {
		out.Reset()
		errOut.Reset()
		code = exit.Run(doctor.New(), []string{"--kubeconfig", shared.KubeconfigPath()}, &out, &errOut)
		return code == 0, nil
	})
	if err != nil {
		t.Errorf("ordinal doctor: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	t.Logf("ordinal doctor:\n%s", out.String())
}
