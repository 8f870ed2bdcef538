package planner_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// podsInPlace is the extended defaults with podUpdatePolicy policy.
func podsInPlace(policy v1alpha1.PodUpdatePolicy, opts ...func(*planner.Extended)) *planner.Extended {
	return extended(append([]func(*planner.Extended){func(e *planner.Extended) {
		e.PodUpdate, e.ResizeTimeout = policy, 2*time.Minute
	}}, opts...)...)
}

// gate gives a pod the controller's readiness gate and, unless status is
// empty, its condition since at.
func gate(status corev1.ConditionStatus, at time.Time) testgen.PodOption {
	return func(pod *corev1.Pod) {
		pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: v1alpha1.InPlaceReadinessGate})
		if status != "" {
			pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: v1alpha1.InPlaceReadinessGate, Status: status, LastTransitionTime: metav1.NewTime(at)})
		}
	}
}

// changedInPlace records an in-place change of the pod to its revision at
// generation 2, which the kubelet has observed (observed true) or not.
func changedInPlace(observed bool) testgen.PodOption {
	return func(pod *corev1.Pod) {
		rec, _ := json.Marshal(map[string]any{"revision": pod.Labels[appsv1.StatefulSetRevisionLabel], "time": now})
		pod.Annotations = map[string]string{v1alpha1.InPlaceUpdateAnnotation: string(rec)}
		pod.Generation = 2
		if observed {
			pod.Status.ObservedGeneration = 2
		}
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue})
	}
}

// resizePending adds a PodResizePending condition with reason since at.
func resizePending(reason string, at time.Time) testgen.PodOption {
	return func(pod *corev1.Pod) {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodResizePending, Status: corev1.ConditionTrue,
			Reason: reason, Message: "Node didn't have enough capacity", LastTransitionTime: metav1.NewTime(at)})
	}
}

func cpu(request string) testgen.SetOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(request)}
	}
}

func env(value string) testgen.SetOption {
	return func(s *appsv1.StatefulSet) {
		s.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MODE", Value: value}}
	}
}

func templateLabel(key, value string) testgen.SetOption {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Labels[key] = value }
}

// change is a rollout fixture whose two revisions differ by the options.
func change(from, to []testgen.SetOption, opts ...testgen.SetOption) fixture {
	old := testgen.StatefulSet("web", append(append([]testgen.SetOption{testgen.Image("app:1")}, opts...), from...)...)
	set := testgen.StatefulSet("web", append(append([]testgen.SetOption{testgen.Image("app:1")}, opts...), to...)...)
	cur, upd := testgen.RevisionOf(old, 1), testgen.RevisionOf(set, 2)
	set.Status.CurrentRevision, set.Status.UpdateRevision = cur.Name, upd.Name
	return fixture{set: set, cur: cur, upd: upd}
}

func TestInPlaceUpdateOfAnImage(t *testing.T) {
	f := rollout(testgen.Replicas(3))
	ifPossible := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible)
	open := gate(corev1.ConditionTrue, testgen.Epoch)
	runPriority(t, []priorityScenario{{
		name:  "the first pod's gate goes False, and only one pod's within maxUnavailable 1",
		f:     f,
		e:     ifPossible,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.pod(2, open)},
		steps: []string{"rolling update: PatchPodStatus web-2"},
	}, {
		name:  "a pod whose gate is False but the kubelet still reports Ready is not changed yet, and holds the slot",
		f:     f,
		e:     ifPossible,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.pod(2, gate(corev1.ConditionFalse, now))},
		steps: nil,
	}, {
		name:  "once out of service, the pod's image is changed in place, before the replica pass",
		f:     f,
		e:     ifPossible,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.pod(2, testgen.NotReady(now), gate(corev1.ConditionFalse, now))},
		steps: []string{"in place: PatchPod web-2"},
	}, {
		name:  "changed, but the kubelet has not reported the new generation: the pod holds the slot",
		f:     f,
		e:     ifPossible,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.updated(2, gate(corev1.ConditionFalse, now), changedInPlace(false))},
		steps: nil,
	}, {
		name:  "done: the gate goes True; the next pod waits until web-2 is available",
		f:     f,
		e:     ifPossible,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, open), f.updated(2, testgen.NotReady(now), gate(corev1.ConditionFalse, now), changedInPlace(true))},
		steps: []string{"in place: PatchPodStatus web-2"},
	}, {
		name:  "a pod without the gate (created before the policy) is changed at once",
		f:     f,
		e:     ifPossible,
		pods:  f.pods(0, 1, 2),
		steps: []string{"rolling update: PatchPod web-2"},
	}, {
		name:  "a pod without the gate that was changed holds the slot until the kubelet reports it",
		f:     f,
		e:     ifPossible,
		pods:  with(f.pods(0, 1), f.updated(2, changedInPlace(false))),
		steps: nil,
	}, {
		name:  "under OrderedReady, self-healing replaces an old pod that is not Ready, as with Recreate",
		f:     f,
		e:     ifPossible,
		pods:  []*corev1.Pod{f.pod(0, open), f.pod(1, testgen.NotReady(now)), f.pod(2, open)},
		steps: []string{"replicas: DeletePod web-1"},
	}})
	g := rollout(testgen.Replicas(3), testgen.Parallel())
	noHealing := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, func(e *planner.Extended) { e.SelfHealing = false })
	runPriority(t, []priorityScenario{{
		name:  "an unavailable old pod is changed without a slot, and the slot stays taken by it",
		f:     g,
		e:     noHealing,
		pods:  []*corev1.Pod{g.pod(0, open), g.pod(1, testgen.NotReady(now)), g.pod(2, open)},
		steps: []string{"rolling update: PatchPod web-1"},
	}})
}

func TestInPlaceGatesAndGrace(t *testing.T) {
	f := rollout(testgen.Replicas(2), testgen.Parallel())
	t.Run("a pod created under an in-place policy has the gate, and a new gated pod gets its condition True", func(t *testing.T) {
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible), f.updated(0, testgen.Pending(), gate("", now)))
		if diff := cmp.Diff([]string{"in place: PatchPodStatus web-0", "replicas*2: CreatePod web-1 at update"}, f.summary(plan)); diff != "" {
			t.Fatalf("steps (-want +got):\n%s", diff)
		}
		created := plan.Steps[1].Actions[0].Pod
		if got := created.Spec.ReadinessGates; len(got) != 1 || got[0].ConditionType != v1alpha1.InPlaceReadinessGate {
			t.Errorf("readiness gates %v, want the controller's", got)
		}
		if patch := string(plan.Steps[0].Actions[0].Patch); !strings.Contains(patch, `"status":"True"`) {
			t.Errorf("gate patch %s does not set True", patch)
		}
	})
	t.Run("Recreate adds no gate", func(t *testing.T) {
		plan := f.ext(extended(), f.updated(0))
		if got := plan.Steps[0].Actions[0].Pod.Spec.ReadinessGates; len(got) != 0 {
			t.Errorf("readiness gates %v, want none", got)
		}
	})
	t.Run("the grace period holds the change and asks for a sync when it ends", func(t *testing.T) {
		e := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, func(e *planner.Extended) { e.InPlaceGrace = 30 * time.Second })
		plan := f.ext(e, f.pod(0, gate(corev1.ConditionTrue, testgen.Epoch)), f.pod(1, testgen.NotReady(now), gate(corev1.ConditionFalse, now.Add(-10*time.Second))))
		if len(plan.Steps) != 0 {
			t.Errorf("steps %v, want none during the grace period", f.summary(plan))
		}
		if plan.RequeueAfter != 20*time.Second {
			t.Errorf("requeue after %s, want 20s", plan.RequeueAfter)
		}
	})
	t.Run("a paused rollout gives a pod it took out of service its gate back", func(t *testing.T) {
		e := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, func(e *planner.Extended) { e.Paused = true })
		plan := f.ext(e, f.pod(0, gate(corev1.ConditionTrue, testgen.Epoch)), f.pod(1, testgen.NotReady(now), gate(corev1.ConditionFalse, now)))
		if diff := cmp.Diff([]string{"in place: PatchPodStatus web-1"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}

func TestInPlaceChangesThatCannotBeMadeInPlace(t *testing.T) {
	f := change([]testgen.SetOption{env("a")}, []testgen.SetOption{env("b")}, testgen.Replicas(2))
	t.Run("InPlaceIfPossible recreates the pod", func(t *testing.T) {
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible), f.pods(0, 1)...)
		if diff := cmp.Diff([]string{"rolling update: DeletePod web-1"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if r := plan.Steps[0].Actions[0].Reason; !strings.Contains(r, "containers[app] (other than image and resources)") {
			t.Errorf("reason %q does not name the container", r)
		}
	})
	t.Run("InPlaceOnly holds the rollout, reports the pod and fails the rollout", func(t *testing.T) {
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceOnly), f.pods(0, 1)...)
		if len(plan.Steps) != 0 {
			t.Errorf("steps %v, want none", f.summary(plan))
		}
		if diff := cmp.Diff([]string{planner.ReasonInPlaceImpossible + " Pod/web-1", planner.ReasonRolloutFailed + " Pod/web-1"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		b := plan.Extended.Status.BlockedBy
		if len(b) != 1 || b[0].Pod != "web-1" || b[0].Reason != planner.ReasonInPlaceImpossible || !b[0].Permanent {
			t.Errorf("blockedBy %+v, want web-1 InPlaceImpossible, permanent", b)
		}
	})
}

func TestInPlaceMetadataAndResize(t *testing.T) {
	t.Run("a change of template labels alone patches every pod at once, without a slot or the gate", func(t *testing.T) {
		f := change(nil, []testgen.SetOption{templateLabel("tier", "gold")}, testgen.Replicas(3))
		open := gate(corev1.ConditionTrue, testgen.Epoch)
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceOnly), f.pod(0, open), f.pod(1, open), f.pod(2, open))
		want := []string{"rolling update: PatchPod web-2", "rolling update: PatchPod web-1", "rolling update: PatchPod web-0"}
		if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if patch := string(plan.Steps[0].Actions[0].Patch); !strings.Contains(patch, `"tier":"gold"`) || strings.Contains(patch, "spec") || strings.Contains(patch, v1alpha1.InPlaceUpdateAnnotation) {
			t.Errorf("patch %s, want the label and no spec or record", patch)
		}
	})
	f := change([]testgen.SetOption{cpu("100m")}, []testgen.SetOption{cpu("200m")}, testgen.Replicas(2))
	t.Run("cpu goes through the resize subresource before the patch that moves the revision", func(t *testing.T) {
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceOnly), f.pods(0, 1)...)
		if diff := cmp.Diff([]string{"rolling update: ResizePod web-1", "rolling update: PatchPod web-1"}, f.summary(plan)); diff != "" {
			t.Fatalf("steps (-want +got):\n%s", diff)
		}
		if patch := string(plan.Steps[0].Actions[0].Patch); !strings.Contains(patch, `"cpu":"200m"`) {
			t.Errorf("resize patch %s", patch)
		}
	})
	infeasible := f.updated(1, testgen.NotReady(now), changedInPlace(true), resizePending(corev1.PodReasonInfeasible, now))
	t.Run("an Infeasible resize recreates the pod under InPlaceIfPossible", func(t *testing.T) {
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible), f.pod(0), infeasible)
		if diff := cmp.Diff([]string{"in place: DeletePod web-1"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	t.Run("an Infeasible resize holds an InPlaceOnly rollout", func(t *testing.T) {
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceOnly), f.pod(0), infeasible)
		if len(plan.Steps) != 0 {
			t.Errorf("steps %v, want none", f.summary(plan))
		}
		b := plan.Extended.Status.BlockedBy
		if len(b) != 1 || b[0].Reason != planner.ReasonPodResizeInfeasible {
			t.Errorf("blockedBy %+v, want web-1 PodResizeInfeasible", b)
		}
	})
	t.Run("a Deferred resize waits, then is given up after the timeout", func(t *testing.T) {
		deferred := f.updated(1, testgen.NotReady(now), changedInPlace(true), resizePending(corev1.PodReasonDeferred, now.Add(-time.Minute)))
		plan := f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible), f.pod(0), deferred)
		if len(plan.Steps) != 0 || plan.RequeueAfter != time.Minute {
			t.Errorf("steps %v, requeue %s; want none and 1m", f.summary(plan), plan.RequeueAfter)
		}
		late := f.updated(1, testgen.NotReady(now), changedInPlace(true), resizePending(corev1.PodReasonDeferred, now.Add(-3*time.Minute)))
		plan = f.ext(podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible), f.pod(0), late)
		if diff := cmp.Diff([]string{"in place: DeletePod web-1"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}

func TestTrimPodKeepsWhatTheInPlaceUpdateReads(t *testing.T) {
	f := rollout(testgen.Replicas(2))
	e := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible)
	cases := [][]*corev1.Pod{
		{f.pod(0, gate(corev1.ConditionTrue, testgen.Epoch)), f.pod(1, testgen.NotReady(now), gate(corev1.ConditionFalse, now))},
		{f.pod(0), f.updated(1, testgen.NotReady(now), changedInPlace(true), resizePending(corev1.PodReasonInfeasible, now))},
		{f.pod(0), f.updated(1, gate(corev1.ConditionFalse, now), changedInPlace(false))},
	}
	for i, pods := range cases {
		var trimmed []*corev1.Pod
		for _, p := range pods {
			trimmed = append(trimmed, planner.TrimPod(p))
		}
		whole, got := f.ext(e, pods...), f.ext(e, trimmed...)
		if diff := cmp.Diff(f.summary(whole), f.summary(got)); diff != "" || len(whole.Waits) != len(got.Waits) {
			t.Errorf("case %d: the trimmed pods plan differently (-whole +trimmed):\n%s", i, diff)
		}
	}
}

// A pod at a revision older than the current one is changed in place from
// that revision's template, which the planner finds among the set's
// revisions; a pod at a revision it cannot find is recreated.
func TestInPlaceFromAThirdRevision(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3))
	older := testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image("app:0"), testgen.Replicas(3), testgen.Parallel(), testgen.MaxUnavailable(3)), 0)
	pods := []*corev1.Pod{f.pod(0), testgen.Pod(f.set, 1, testgen.At(older)), testgen.Pod(f.set, 2, testgen.Revision("web-gone"))}
	e := podsInPlace(v1alpha1.PodUpdateInPlaceIfPossible, func(e *planner.Extended) {
		observedOf(e).Revisions = []*appsv1.ControllerRevision{older, f.cur, f.upd}
		e.MaxUnavailable = 3
	})
	plan := f.ext(e, pods...)
	want := []string{"rolling update: DeletePod web-2", "rolling update: PatchPod web-1", "rolling update: PatchPod web-0"}
	if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}
