package realnode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// same reports where the simulated kubelet shows a user something other
// than the real one.
func same(t *testing.T, real, sim Observed) {
	t.Helper()
	if diff := cmp.Diff(real, sim); diff != "" {
		t.Errorf("the simulated kubelet differs from the real one (-real +simulated):\n%s", diff)
	}
}

func patchPod(ctx context.Context, t *testing.T, p *corev1.Pod, patch any, subresources ...string) {
	t.Helper()
	raw, _ := json.Marshal(patch)
	if _, err := client.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, raw, metav1.PatchOptions{}, subresources...); err != nil {
		t.Fatalf("patching %s %v: %v", p.Name, subresources, err)
	}
}

func containerPatch(c map[string]any) map[string]any {
	c["name"] = "app"
	return map[string]any{"spec": map[string]any{"containers": []map[string]any{c}}}
}

// An image changed in a running pod's spec restarts its container in place:
// one restart, a new container ID, the old one's exit as its last state,
// Ready again once the new one is.
func TestAnImageChangeInPlaceRestartsTheContainerAsTheRealKubeletDoes(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	v2 := testAppImage(ctx, t, "v2")
	real, sim, _ := scenario{
		name: "image", spec: appSpec(),
		act: func(ctx context.Context, t *testing.T, p *corev1.Pod) {
			patchPod(ctx, t, p, containerPatch(map[string]any{"image": v2}))
		},
		settled: func(p *corev1.Pod) bool {
			cs := p.Status.ContainerStatuses
			return len(cs) == 1 && cs[0].Image == v2 && cs[0].RestartCount == 1 && ready(p)
		},
		events: []string{"Killing", "Pulled", "Created", "Started"},
	}.run(ctx, t, ns)
	same(t, real, sim)
}

// A cpu and memory resize through the resize subresource changes the
// container's resources without a restart, and the real container's
// cgroup holds the new limits.
func TestAResizeInPlaceIsWhatTheRealKubeletReports(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	real, sim, pods := scenario{
		name: "resize", spec: resourced(appSpec()),
		act: func(ctx context.Context, t *testing.T, p *corev1.Pod) {
			patchPod(ctx, t, p, containerPatch(map[string]any{"resources": map[string]any{
				"requests": map[string]string{"cpu": "150m", "memory": "64Mi"},
				"limits":   map[string]string{"cpu": "300m", "memory": "192Mi"}}}), "resize")
		},
		settled: func(p *corev1.Pod) bool {
			cs := p.Status.ContainerStatuses
			return len(cs) == 1 && cs[0].Resources != nil && cs[0].Resources.Limits.Cpu().Cmp(resource.MustParse("300m")) == 0 &&
				!hasCondition(p, corev1.PodResizeInProgress) && !hasCondition(p, corev1.PodResizePending)
		},
		// The kubelet records ResizeCompleted as it clears the in-progress
		// condition; the event may reach the API server after the status.
		events: []string{"ResizeStarted", "ResizeCompleted"},
	}.run(ctx, t, ns)
	same(t, real, sim)
	st := status(ctx, t, pods["real"])
	if st.Cgroup.CPUQuotaUS*1000/max(st.Cgroup.CPUPeriodUS, 1) != 300 || st.Cgroup.MemoryBytes != 192<<20 {
		t.Errorf("the container's cgroup (v%d) holds cpu quota %d/%d µs and memory %d bytes, want 300m and 192Mi",
			st.Cgroup.Version, st.Cgroup.CPUQuotaUS, st.Cgroup.CPUPeriodUS, st.Cgroup.MemoryBytes)
	}
}

// A resize beyond what the node can allocate at all is refused by the API
// server (1.36 checks it when the resize is written), on either node: the
// kubelet's Infeasible, which the simulated nodes play by annotation, is
// not reached through the API.
func TestAResizeBeyondTheNodesAllocatableIsRefusedOnBothNodes(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	for _, s := range sides {
		p := placed(s, "beyond", resourced(appSpec()), nil)
		if _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPod(ctx, t, ns, p.Name, 2*time.Minute, "Ready", ready)
		raw, _ := json.Marshal(containerPatch(map[string]any{"resources": map[string]any{
			"requests": map[string]string{"cpu": "5000", "memory": "64Mi"},
			"limits":   map[string]string{"cpu": "5000", "memory": "128Mi"}}}))
		_, err := client.CoreV1().Pods(ns).Patch(ctx, p.Name, types.StrategicMergePatchType, raw, metav1.PatchOptions{}, "resize")
		if err == nil || !strings.Contains(err.Error(), "node didn't have enough allocatable resources: cpu") {
			t.Errorf("a resize to 5000 cpus on the %s node: %v, want it refused for the node's allocatable cpu", s.name, err)
		}
	}
}

// A resize that fits the node but not what its other pods leave free is
// Deferred, and completes once room is made; the simulated node plays it by
// annotation, removed to make room.
func TestADeferredResizeIsWhatTheRealKubeletReports(t *testing.T) {
	n := node(t)
	ctx, ns := namespace(t)
	filler := appSpec()
	filler.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")}
	fp := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "filler"}, Spec: filler}
	if _, err := client.CoreV1().Pods(ns).Create(ctx, fp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(ctx, t, ns, "filler", 2*time.Minute, "Ready", ready)
	resize := func(ctx context.Context, t *testing.T, p *corev1.Pod) {
		patchPod(ctx, t, p, containerPatch(map[string]any{"resources": map[string]any{
			"requests": map[string]string{"cpu": "1000m", "memory": "64Mi"},
			"limits":   map[string]string{"cpu": "1000m", "memory": "128Mi"}}}), "resize")
	}
	real, sim, pods := scenario{
		name: "deferred", spec: resourced(appSpec()),
		sim: map[string]string{nodes.AnnotationResize: nodes.ResizeDeferred},
		act: resize,
		// The kubelet's status manager gives status.observedGeneration the
		// generation of the pod it syncs, on every status sync; the pending
		// condition can be written a sync before it (seen in four runs of
		// five): run waits for both.
		settled: func(p *corev1.Pod) bool { return hasCondition(p, corev1.PodResizePending) },
		events:  []string{"ResizeDeferred"},
	}.run(ctx, t, ns)
	same(t, real, sim)
	if err := client.CoreV1().Pods(ns).Delete(ctx, "filler", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	patchPod(ctx, t, pods["simulated"], map[string]any{"metadata": map[string]any{"annotations": map[string]any{nodes.AnnotationResize: nil}}})
	for _, p := range pods {
		waitPod(ctx, t, ns, p.Name, 2*time.Minute, "resized once room is made", func(p *corev1.Pod) bool {
			cs := p.Status.ContainerStatuses
			return len(cs) == 1 && cs[0].Resources != nil && cs[0].Resources.Requests.Cpu().Cmp(resource.MustParse("1000m")) == 0 &&
				!hasCondition(p, corev1.PodResizePending) && !hasCondition(p, corev1.PodResizeInProgress)
		})
	}
	_ = n
}

// A readiness gate holds a pod whose containers are Ready unready until its
// condition is set.
func TestAReadinessGateIsWhatTheRealKubeletReports(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	const gate = "ordinal.dev/test-gate"
	spec := appSpec()
	spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: gate}}
	containersReady := func(p *corev1.Pod) bool { return conditionIs(p, corev1.ContainersReady, corev1.ConditionTrue) }
	real, sim, pods := scenario{name: "gate", spec: spec, started: containersReady}.run(ctx, t, ns)
	same(t, real, sim)
	for _, p := range pods {
		patchPod(ctx, t, p, map[string]any{"status": map[string]any{"conditions": []map[string]any{{"type": gate, "status": "True"}}}}, "status")
	}
	for _, p := range pods {
		waitPod(ctx, t, ns, p.Name, time.Minute, "Ready once its gate is", ready)
	}
}

// A container that exits with an error is restarted with a back-off.
func TestACrashLoopIsWhatTheRealKubeletReports(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	looping := func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].RestartCount >= 1 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "CrashLoopBackOff"
	}
	real, sim, _ := scenario{
		name: "crash", spec: appSpec("--exit-after=0s", "--exit-code=1"),
		sim:     map[string]string{nodes.AnnotationBehavior: nodes.BehaviorCrashLoop},
		started: looping,
		events:  []string{"BackOff"},
	}.run(ctx, t, ns)
	// How many restarts have happened by the time both are seen looping is
	// a matter of timing on either side.
	real.RestartCount, sim.RestartCount = min(real.RestartCount, 1), min(sim.RestartCount, 1)
	same(t, real, sim)
}

// A container whose readiness never passes runs unready.
func TestAnUnreadyContainerIsWhatTheRealKubeletReports(t *testing.T) {
	node(t)
	ctx, ns := namespace(t)
	running := func(p *corev1.Pod) bool {
		cs := p.Status.ContainerStatuses
		return len(cs) == 1 && cs[0].State.Running != nil && cs[0].Started != nil && *cs[0].Started &&
			conditionIs(p, corev1.ContainersReady, corev1.ConditionFalse)
	}
	real, sim, _ := scenario{
		name: "unready", spec: appSpec("--unready"),
		sim:     map[string]string{nodes.AnnotationBehavior: nodes.BehaviorNeverReady},
		started: running,
	}.run(ctx, t, ns)
	same(t, real, sim)
}

func hasCondition(p *corev1.Pod, c corev1.PodConditionType) bool {
	for _, x := range p.Status.Conditions {
		if x.Type == c {
			return true
		}
	}
	return false
}

func conditionIs(p *corev1.Pod, c corev1.PodConditionType, s corev1.ConditionStatus) bool {
	for _, x := range p.Status.Conditions {
		if x.Type == c {
			return x.Status == s
		}
	}
	return false
}
