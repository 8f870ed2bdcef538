package realnode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/realnode"
)

// benchPods is the set's size on the real node; maxUnavailable is the
// in-place benchmark's 25 % of docs/benchmarks.md.
const benchPods = 20

// The in-place against recreate roll-out of docs/benchmarks.md on real
// pods: an extended set of 20 pods (Parallel, maxUnavailable 25 %, a claim
// each) on the real node rolls the test application from one image to
// another, once with podUpdatePolicy Recreate and once InPlaceIfPossible,
// side by side in one run, under the chart's controller. Sandboxes,
// networks, mounts and container starts are real costs here. Reports the
// roll-out's wall time and the pods recreated, per policy, and logs the
// mean time each step of a pod's update took (timeline_test.go).
//
//	go test ./test/realnode -run '^$' -bench InPlaceAgainstRecreate -benchtime 1x
func BenchmarkInPlaceAgainstRecreateOnRealPods(b *testing.B) {
	if skipReason != "" {
		b.Skip("no real node: " + skipReason)
	}
	for _, policy := range []string{"Recreate", "InPlaceIfPossible"} {
		b.Run(policy, func(b *testing.B) { benchRollout(b, policy) })
	}
}

func benchRollout(b *testing.B, policy string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// A namespace of its own each run (the benchmark function runs more
	// than once with -benchtime or -count), gone before the next run
	// starts so that its pods' teardown does not load the node.
	created, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-" + strings.ToLower(policy) + "-"}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ns := created.Name
	defer func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		_ = wait.PollUntilContextTimeout(context.Background(), time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	}()
	dyn := dynamic.NewForConfigOrDie(shared.RESTConfig()).Resource(v1alpha1.Resource).Namespace(ns)
	if _, err := dyn.Create(ctx, benchSet(policy), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := waitRolledOut(ctx, dyn, realnode.TestAppImage); err != nil {
		b.Fatalf("%s: the set did not start: %v", policy, err)
	}
	images := []string{benchImage(ctx, b, "v2"), benchImage(ctx, b, "v3")}
	var total time.Duration
	recreated := 0
	b.ResetTimer()
	for i := range b.N {
		before := podUIDs(ctx, b, ns)
		img := images[i%2]
		patch, _ := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": img}})
		old := map[string]string{}
		for name, uid := range before {
			old[name] = string(uid)
		}
		tl := watchTimeline(ctx, b, ns, policy, img, old)
		began := time.Now()
		if _, err := dyn.Patch(ctx, "bench", types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := waitRolledOut(ctx, dyn, img); err != nil {
			b.Fatalf("%s: the roll-out to %s did not finish: %v", policy, img, err)
		}
		total += time.Since(began)
		b.Log(tl.report())
		after := podUIDs(ctx, b, ns)
		for name, uid := range before {
			if after[name] != uid {
				recreated++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(total.Seconds()/float64(b.N), "s/rollout")
	b.ReportMetric(float64(recreated)/float64(b.N), "recreated/rollout")
}

func benchImage(ctx context.Context, b *testing.B, tag string) string {
	ref, err := buildTestAppImage(ctx, tag)
	if err != nil {
		b.Fatal(err)
	}
	return ref
}

// benchSet is the extended set of the benchmark with podUpdatePolicy
// policy, on the real node.
func benchSet(policy string) *unstructured.Unstructured {
	spec := appSpec("--data=/data")
	spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	raw, _ := json.Marshal(spec)
	var podSpec map[string]any
	_ = json.Unmarshal(raw, &podSpec)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.SchemeGroupVersion.String(), "kind": "StatefulSet",
		"metadata": map[string]any{"name": "bench"},
		"spec": map[string]any{
			"replicas": int64(benchPods), "serviceName": "bench", "podManagementPolicy": "Parallel",
			"selector": map[string]any{"matchLabels": map[string]any{"app": "bench"}},
			"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{
				"maxUnavailable": "25%", "podUpdatePolicy": policy}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "bench"}}, "spec": podSpec},
			"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "data"}, "spec": map[string]any{
				"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}}},
		},
	}}
}

// waitRolledOut waits until every pod runs image, is Ready, and the set's
// status says the roll-out is done.
func waitRolledOut(ctx context.Context, dyn dynamic.ResourceInterface, image string) error {
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		u, err := dyn.Get(ctx, "bench", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		gen, _, _ := unstructured.NestedInt64(u.Object, "metadata", "generation")
		num := func(k string) int64 { v, _, _ := unstructured.NestedInt64(st, k); return v }
		str := func(k string) string { v, _, _ := unstructured.NestedString(st, k); return v }
		if num("observedGeneration") != gen || num("readyReplicas") != benchPods || num("updatedReplicas") != benchPods ||
			str("currentRevision") != str("updateRevision") {
			return false, nil
		}
		pods, err := client.CoreV1().Pods(u.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: "app=bench"})
		if err != nil || len(pods.Items) != benchPods {
			return false, nil
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			cs := p.Status.ContainerStatuses
			if p.DeletionTimestamp != nil || !ready(p) || len(cs) != 1 || cs[0].Image != image {
				return false, nil
			}
		}
		return true, nil
	})
}

func podUIDs(ctx context.Context, b *testing.B, ns string) map[string]types.UID {
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=bench"})
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]types.UID{}
	for _, p := range pods.Items {
		out[p.Name] = p.UID
	}
	return out
}
