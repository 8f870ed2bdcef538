package plane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

// resourcedPod is simplePod with cpu and memory requests and limits and,
// optionally, a resize policy.
func resourcedPod(name string, annotations map[string]string, policy ...corev1.ContainerResizePolicy) *corev1.Pod {
	pod := simplePod(name, annotations)
	pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}
	pod.Spec.Containers[0].ResizePolicy = policy
	return pod
}

// startPod creates pod and waits until it runs Ready; it returns the pod.
func startPod(t *testing.T, ctx context.Context, ns string, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	if _, err := planetest.Client().CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logPod(t, ns, pod.Name) })
	waitPod(t, ctx, ns, pod.Name, "Running and Ready", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning && ready(p) })
	got, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// kwok's stages start a pod; the in-place part has nothing to write.
	for _, m := range got.ManagedFields {
		if m.Manager == nodes.FieldManager {
			t.Errorf("the in-place part wrote the status of a pod that only started: %s", m.FieldsV1)
		}
	}
	return got
}

// logPod shows a failed test the pod's status and events.
func logPod(t *testing.T, ns, name string) {
	if !t.Failed() {
		return
	}
	ctx := context.Background()
	if p, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
		t.Logf("pod generation %d status %+v", p.Generation, p.Status)
	}
	if events, err := planetest.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{}); err == nil {
		for _, e := range events.Items {
			t.Logf("event %s %s %s: %s", e.InvolvedObject.Name, e.Type, e.Reason, e.Message)
		}
	}
}

func getPod(t *testing.T, ctx context.Context, ns, name string) *corev1.Pod {
	t.Helper()
	p, err := planetest.Client().CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func patchPod(t *testing.T, ctx context.Context, ns, name, subresource, patch string) {
	t.Helper()
	var sub []string
	if subresource != "" {
		sub = []string{subresource}
	}
	if _, err := planetest.Client().CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, sub...); err != nil {
		t.Fatalf("patching pod %s (%s): %v", name, patch, err)
	}
}

func condition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func TestAnImageChangedInPlaceRestartsTheContainerOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	before := startPod(t, ctx, ns, resourcedPod("web", map[string]string{nodes.AnnotationReadyDelay: "2s"}))
	cs := before.Status.ContainerStatuses[0]
	if cs.ImageID != nodes.ImageID(cs.Image) || cs.ContainerID != nodes.ContainerID(before.UID, "app", 0) {
		t.Errorf("started container: imageID %q containerID %q, want %q and %q", cs.ImageID, cs.ContainerID,
			nodes.ImageID(cs.Image), nodes.ContainerID(before.UID, "app", 0))
	}
	if q := cs.AllocatedResources[corev1.ResourceCPU]; q.Cmp(resource.MustParse("100m")) != 0 || cs.Resources == nil {
		t.Errorf("started container: allocatedResources %v resources %v, want the spec's", cs.AllocatedResources, cs.Resources)
	}

	patchPod(t, ctx, ns, "web", "", `{"spec":{"containers":[{"name":"app","image":"registry.k8s.io/nginx-slim:0.9"}]}}`)
	restarted := func(p *corev1.Pod) bool {
		c := p.Status.ContainerStatuses[0]
		return c.RestartCount == 1 && c.Image == "registry.k8s.io/nginx-slim:0.9" && c.State.Running != nil
	}
	waitPod(t, ctx, ns, "web", "restarted with the new image, not Ready", func(p *corev1.Pod) bool { return restarted(p) && !ready(p) })
	waitPod(t, ctx, ns, "web", "Ready again", func(p *corev1.Pod) bool { return restarted(p) && ready(p) })

	after := getPod(t, ctx, ns, "web")
	c := after.Status.ContainerStatuses[0]
	if after.UID != before.UID || after.Spec.NodeName != before.Spec.NodeName {
		t.Errorf("pod %s on %s became %s on %s; an in-place change keeps both", before.UID, before.Spec.NodeName, after.UID, after.Spec.NodeName)
	}
	if c.ImageID != nodes.ImageID("registry.k8s.io/nginx-slim:0.9") || c.ImageID == cs.ImageID {
		t.Errorf("imageID %q, want the new image's %q", c.ImageID, nodes.ImageID("registry.k8s.io/nginx-slim:0.9"))
	}
	if c.ContainerID == cs.ContainerID || c.LastTerminationState.Terminated == nil || c.LastTerminationState.Terminated.ContainerID != cs.ContainerID {
		t.Errorf("containerID %q lastState %+v, want a new ID and the old instance %q terminated", c.ContainerID, c.LastTerminationState, cs.ContainerID)
	}
	// Times have whole seconds on the API, so the order is checked, not a gap.
	if last := c.LastTerminationState.Terminated; last == nil || !last.StartedAt.Equal(&cs.State.Running.StartedAt) ||
		last.FinishedAt.Before(&last.StartedAt) || c.State.Running.StartedAt.Before(&last.FinishedAt) {
		t.Errorf("lastState %+v, running since %v: want the first instance (started %v) finished before the new one started",
			c.LastTerminationState.Terminated, c.State.Running.StartedAt, cs.State.Running.StartedAt)
	}
	if after.Status.ObservedGeneration != after.Generation {
		t.Errorf("status.observedGeneration %d, want the generation %d", after.Status.ObservedGeneration, after.Generation)
	}
}

func TestAFailedInPlaceStartCrashLoopsOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	startPod(t, ctx, ns, resourcedPod("web", map[string]string{nodes.AnnotationInPlaceStart: nodes.InPlaceStartFail}))
	patchPod(t, ctx, ns, "web", "", `{"spec":{"containers":[{"name":"app","image":"registry.k8s.io/nginx-slim:0.9"}]}}`)
	waitPod(t, ctx, ns, "web", "in CrashLoopBackOff with the new image", func(p *corev1.Pod) bool {
		c := p.Status.ContainerStatuses[0]
		return waitingReason(p) == "CrashLoopBackOff" && c.Image == "registry.k8s.io/nginx-slim:0.9" && c.RestartCount == 2 && !ready(p)
	})
	// The annotation removed and the image changed again (a roll back),
	// the next start succeeds.
	patchPod(t, ctx, ns, "web", "", `{"metadata":{"annotations":{"`+nodes.AnnotationInPlaceStart+`":null}},"spec":{"containers":[{"name":"app","image":"registry.k8s.io/nginx-slim:0.8"}]}}`)
	waitPod(t, ctx, ns, "web", "Ready with the old image", func(p *corev1.Pod) bool {
		c := p.Status.ContainerStatuses[0]
		return ready(p) && c.Image == "registry.k8s.io/nginx-slim:0.8" && c.RestartCount == 3
	})
}

const cpuResize = `{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"300m"},"limits":{"cpu":"400m"}}}]}}`

func TestAResizeIsAppliedWithoutARestartOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	startPod(t, ctx, ns, resourcedPod("web", map[string]string{nodes.AnnotationResizeDelay: "2s"}))
	patchPod(t, ctx, ns, "web", "resize", cpuResize)
	gen := getPod(t, ctx, ns, "web").Generation
	waitPod(t, ctx, ns, "web", "resize in progress", func(p *corev1.Pod) bool {
		c, q := condition(p, corev1.PodResizeInProgress), p.Status.ContainerStatuses[0].AllocatedResources[corev1.ResourceCPU]
		running := p.Status.ContainerStatuses[0].Resources.Requests[corev1.ResourceCPU]
		return c != nil && c.ObservedGeneration == gen && q.Cmp(resource.MustParse("300m")) == 0 && running.Cmp(resource.MustParse("100m")) == 0
	})
	waitPod(t, ctx, ns, "web", "resized", func(p *corev1.Pod) bool {
		r := p.Status.ContainerStatuses[0].Resources
		return condition(p, corev1.PodResizeInProgress) == nil && r.Requests.Cpu().Cmp(resource.MustParse("300m")) == 0 &&
			r.Limits.Cpu().Cmp(resource.MustParse("400m")) == 0
	})
	p := getPod(t, ctx, ns, "web")
	if c := p.Status.ContainerStatuses[0]; c.RestartCount != 0 || !ready(p) {
		t.Errorf("restartCount %d, Ready %v after a resize that needs no restart; want 0 and true", c.RestartCount, ready(p))
	}
}

func TestAResizeWhosePolicySaysRestartContainerRestartsItOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	policy := []corev1.ContainerResizePolicy{
		{ResourceName: corev1.ResourceCPU, RestartPolicy: corev1.NotRequired},
		{ResourceName: corev1.ResourceMemory, RestartPolicy: corev1.RestartContainer},
	}
	startPod(t, ctx, ns, resourcedPod("web", map[string]string{nodes.AnnotationResizeDelay: "0s"}, policy...))
	patchPod(t, ctx, ns, "web", "resize", `{"spec":{"containers":[{"name":"app","resources":{"requests":{"memory":"96Mi"},"limits":{"memory":"256Mi"}}}]}}`)
	waitPod(t, ctx, ns, "web", "restarted with the new memory, Ready", func(p *corev1.Pod) bool {
		c := p.Status.ContainerStatuses[0]
		return c.RestartCount == 1 && c.Resources.Limits.Memory().Cmp(resource.MustParse("256Mi")) == 0 &&
			condition(p, corev1.PodResizeInProgress) == nil && ready(p)
	})
}

func TestADeferredOrInfeasibleResizeWaitsForTheAnnotationOnTheRealAPIServer(t *testing.T) {
	for _, reason := range []string{nodes.ResizeDeferred, nodes.ResizeInfeasible} {
		t.Run(reason, func(t *testing.T) {
			ctx, ns := namespace(t)
			startPod(t, ctx, ns, resourcedPod("web", map[string]string{nodes.AnnotationResize: reason, nodes.AnnotationResizeDelay: "0s"}))
			patchPod(t, ctx, ns, "web", "resize", cpuResize)
			gen := getPod(t, ctx, ns, "web").Generation
			want := map[string]string{nodes.ResizeDeferred: corev1.PodReasonDeferred, nodes.ResizeInfeasible: corev1.PodReasonInfeasible}[reason]
			waitPod(t, ctx, ns, "web", "PodResizePending "+want, func(p *corev1.Pod) bool {
				c := condition(p, corev1.PodResizePending)
				return c != nil && c.Reason == want && c.ObservedGeneration == gen
			})
			p := getPod(t, ctx, ns, "web")
			if q := p.Status.ContainerStatuses[0].AllocatedResources[corev1.ResourceCPU]; q.Cmp(resource.MustParse("100m")) != 0 {
				t.Errorf("allocated cpu %s while the resize is pending, want the old 100m", q.String())
			}
			patchPod(t, ctx, ns, "web", "", `{"metadata":{"annotations":{"`+nodes.AnnotationResize+`":null}}}`)
			waitPod(t, ctx, ns, "web", "resized", func(p *corev1.Pod) bool {
				return condition(p, corev1.PodResizePending) == nil && condition(p, corev1.PodResizeInProgress) == nil &&
					p.Status.ContainerStatuses[0].Resources.Requests.Cpu().Cmp(resource.MustParse("300m")) == 0
			})
		})
	}
}

func TestAReadinessGateHoldsThePodUnreadyOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	pod := simplePod("web", nil)
	pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/gate"}}
	// A watch sees every version of the pod: none may be Ready before the
	// gate is True.
	w, err := planetest.Client().CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := planetest.Client().CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logPod(t, ns, "web") })
	for held := false; !held; {
		var ev watch.Event
		select {
		case ev = <-w.ResultChan():
		case <-ctx.Done():
			t.Fatal("the pod's containers never became Ready with the pod held by its gate")
		}
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch: %v", ev.Object)
		}
		if ready(p) {
			t.Fatalf("pod Ready before its readiness gate was set: %+v", p.Status.Conditions)
		}
		c, r := condition(p, corev1.ContainersReady), condition(p, corev1.PodReady)
		held = c != nil && c.Status == corev1.ConditionTrue && r != nil && r.Reason == "ReadinessGatesNotReady"
	}
	patchPod(t, ctx, ns, "web", "status", `{"status":{"conditions":[{"type":"example.com/gate","status":"True"}]}}`)
	waitPod(t, ctx, ns, "web", "Ready", ready)
	patchPod(t, ctx, ns, "web", "status", `{"status":{"conditions":[{"type":"example.com/gate","status":"False"}]}}`)
	waitPod(t, ctx, ns, "web", "not Ready again", func(p *corev1.Pod) bool { return !ready(p) })
}
