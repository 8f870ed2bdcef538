package planner_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// A controller caches only planner.TrimPod and planner.TrimClaim of what it
// watches; the plan must not change for it. Every generated pod and claim
// first gets what real ones carry and the planner must not read (other
// conditions, container states, annotations, other volumes, node and IPs,
// finalizers, a claim's spec).
func TestPlansAreTheSameFromTrimmedPodsAndClaims(t *testing.T) {
	for seed := range propertyRuns() {
		g := generate(prng{rand.New(rand.NewPCG(seed, 7))})
		whole := deepCopyInput(g.in)
		for _, p := range whole.Pods {
			decoratePod(p)
		}
		for _, c := range whole.Claims {
			decorateClaim(c)
		}
		trimmed := whole
		trimmed.Pods = nil
		for _, p := range whole.Pods {
			trimmed.Pods = append(trimmed.Pods, planner.TrimPod(p))
		}
		trimmed.Claims = map[string]*corev1.PersistentVolumeClaim{}
		for k, c := range whole.Claims {
			trimmed.Claims[k] = planner.TrimClaim(c)
		}
		want, got := observable(compute(whole)), observable(compute(trimmed))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: the plan from trimmed objects differs (-whole +trimmed):\n%s", seed, diff)
		}
	}
}

func TestTrimPodKeepsWhatItPromises(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "ns", UID: "u", ResourceVersion: "7",
		Labels: map[string]string{"a": "b"}, OwnerReferences: []metav1.OwnerReference{{Name: "web", UID: "s"}}},
		Spec: corev1.PodSpec{Hostname: "web-0", Subdomain: "web", NodeName: "node-1", Volumes: []corev1.Volume{
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-web-0"}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(100, 0)}}}}
	want := pod.DeepCopy()
	decoratePod(pod)
	got := planner.TrimPod(pod)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TrimPod (-want +got):\n%s", diff)
	}
}

// decoratePod adds what a pod on a real node carries besides what the
// planner reads; the Ready condition keeps its status and time but gains a
// reason and message.
func decoratePod(p *corev1.Pod) {
	p.Annotations = map[string]string{"note": "x", "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}
	p.Finalizers = []string{"example.com/hold"}
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}}
	p.Generation = 3
	p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "side:1",
		Env: []corev1.EnvVar{{Name: "A", Value: "1"}}, ReadinessProbe: &corev1.Probe{PeriodSeconds: 3}})
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "config",
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}})
	p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	for i := range p.Status.Conditions {
		p.Status.Conditions[i].Reason, p.Status.Conditions[i].Message = "SomeReason", "some message"
	}
	p.Status.Conditions = append(p.Status.Conditions,
		corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(1, 0)},
		corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Unix(2, 0)})
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", RestartCount: 4, Image: "app:1", ImageID: "sha256:x",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Unix(3, 0)}}}}
	p.Status.PodIP, p.Status.HostIP = "10.0.0.1", "10.1.0.1"
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}}
	p.Status.StartTime = &metav1.Time{Time: time.Unix(5, 0)}
}

func decorateClaim(c *corev1.PersistentVolumeClaim) {
	c.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	c.Finalizers = append(c.Finalizers, "kubernetes.io/pvc-protection")
	c.Spec.VolumeName = "pv-1"
	c.Status.Capacity = corev1.ResourceList{}
	c.Status.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
}

// observedPlan is what a plan makes the controller do and say: each
// action's kind, ordinal, reason and event, and for observed objects the
// fields a write sends (labels and owner references, with the
// resourceVersion that guards the patch); status, waits, requeue and
// warnings whole.
type observedPlan struct {
	Steps    [][]observedAction
	Status   any
	Waits    []planner.Wait
	Requeue  time.Duration
	Warnings []planner.Warning
}

type observedAction struct {
	Kind                         planner.Kind
	Ordinal                      int32
	Reason, Event                string
	Object, UID, ResourceVersion string
	Labels                       map[string]string
	Owners                       []metav1.OwnerReference
}

func observable(p planner.Plan) observedPlan {
	out := observedPlan{Status: p.Status, Waits: p.Waits, Requeue: p.RequeueAfter, Warnings: p.Warnings}
	for _, s := range p.Steps {
		var actions []observedAction
		for _, a := range s.Actions {
			o := observedAction{Kind: a.Kind, Ordinal: a.Ordinal, Reason: a.Reason, Event: a.EventReason}
			switch {
			case a.Pod != nil && a.Kind != planner.CreateClaim && a.Kind != planner.UpdateClaim:
				o.Object, o.UID, o.ResourceVersion, o.Labels = a.Pod.Name, string(a.Pod.UID), a.Pod.ResourceVersion, a.Pod.Labels
			case a.Claim != nil:
				o.Object, o.UID, o.ResourceVersion, o.Owners = a.Claim.Name, string(a.Claim.UID), a.Claim.ResourceVersion, a.Claim.OwnerReferences
			}
			actions = append(actions, o)
		}
		out.Steps = append(out.Steps, actions)
	}
	return out
}

// What Classify reads of a pod in trouble survives TrimPod: the failure of
// the trimmed pod is the failure of the whole one.
func TestTrimPodKeepsWhatClassifyReads(t *testing.T) {
	waiting := func(name, reason string, restarts int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, RestartCount: restarts, Image: "x", ImageID: "y",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "because"}}}
	}
	running := corev1.ContainerStatus{Name: "ok", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	pods := map[string]*corev1.Pod{
		"crash loop after a running sidecar": {Status: corev1.PodStatus{Phase: corev1.PodRunning,
			ContainerStatuses: []corev1.ContainerStatus{running, waiting("app", "CrashLoopBackOff", 5)}}},
		"an init container stuck on its image": {Status: corev1.PodStatus{Phase: corev1.PodPending,
			InitContainerStatuses: []corev1.ContainerStatus{waiting("init", "ImagePullBackOff", 0)},
			ContainerStatuses:     []corev1.ContainerStatus{waiting("app", "PodInitializing", 0)}}},
		"unschedulable": {Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes"}}}},
		"failed": {Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "the node ran out of memory"}},
	}
	for name, pod := range pods {
		t.Run(name, func(t *testing.T) {
			pod.Name, pod.Namespace = "web-0", "ns"
			want := planner.Classify(pod, 0, time.Unix(1000, 0), time.Minute)
			got := planner.Classify(planner.TrimPod(pod), 0, time.Unix(1000, 0), time.Minute)
			if want == nil || want.Reason == "NotReady" || want.Reason == "Pending" {
				t.Fatalf("the case does not exercise a failure: %+v", want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Classify (-whole +trimmed):\n%s", diff)
			}
		})
	}
}
