package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const holdFinalizer = "ordinal.test/hold"

func TestSpecReplicasChangeIsFollowedByStatus(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2), parallel()))
	waitSet(t, ns, time.Minute, "2 ready replicas", readyCount(2))
	for _, n := range []int32{3, 0, 2} {
		updateSet(t, ns, setReplicas(n))
		waitSet(t, ns, time.Minute, fmt.Sprintf("%d ready replicas", n), readyCount(n))
	}
	before := getSet(t, ns).Generation
	stored := updateSet(t, ns, podAnnotation("test", "value"))
	if stored.Generation != before+1 {
		t.Fatalf("a template change should bump generation %d by one, got %d", before, stored.Generation)
	}
	waitSet(t, ns, time.Minute, "observedGeneration to catch up and the rollout to finish", settled)
}

func TestTerminatingPodIsNotReplacedUntilGone(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(3), parallel()))
	waitSet(t, ns, time.Minute, "3 ready replicas", readyCount(3))
	updatePod(t, ns, "web-1", false, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdFinalizer) })
	t.Cleanup(func() { releaseHold(ns, "web-1") })
	held, _ := getPod(t, ns, "web-1")
	deletePod(t, ns, "web-1")
	waitFor(t, 30*time.Second, "web-1 to be terminating", func() (bool, error) {
		p, ok := getPod(t, ns, "web-1")
		return ok && p.DeletionTimestamp != nil, nil
	})
	consistently(t, 2*time.Second, "web-1 is held by a finalizer", func() error {
		p, ok := getPod(t, ns, "web-1")
		if !ok || p.UID != held.UID {
			return fmt.Errorf("web-1 was replaced while the old pod still terminates")
		}
		if n := len(listPods(t, ns)); n != 3 {
			return fmt.Errorf("want 3 pods, got %d", n)
		}
		return nil
	})
	updatePod(t, ns, "web-1", false, func(p *corev1.Pod) { p.Finalizers = slices.DeleteFunc(p.Finalizers, isHold) })
	waitFor(t, 30*time.Second, "web-1 to be replaced", func() (bool, error) {
		p, ok := getPod(t, ns, "web-1")
		if !ok || p.UID == held.UID || !isReady(p) {
			return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		}
		return true, nil
	})
	waitSet(t, ns, time.Minute, "3 ready replicas", readyCount(3))
}

func isHold(f string) bool { return f == holdFinalizer }

// releaseHold removes the test finalizer so the namespace can go away.
func releaseHold(ns, name string) {
	pods := client.CoreV1().Pods(ns)
	p, err := pods.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil || !slices.Contains(p.Finalizers, holdFinalizer) {
		return
	}
	p.Finalizers = slices.DeleteFunc(p.Finalizers, isHold)
	_, _ = pods.Update(context.Background(), p, metav1.UpdateOptions{})
}

func TestFailedAndSucceededPodsAreDeletedAndReplaced(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2), parallel()))
	waitSet(t, ns, time.Minute, "2 ready replicas", readyCount(2))
	for name, phase := range map[string]corev1.PodPhase{"web-0": corev1.PodFailed, "web-1": corev1.PodSucceeded} {
		old, _ := getPod(t, ns, name)
		updatePod(t, ns, name, true, func(p *corev1.Pod) { p.Status.Phase = phase })
		waitFor(t, 30*time.Second, name+" ("+string(phase)+") to be replaced", func() (bool, error) {
			p, ok := getPod(t, ns, name)
			if !ok || p.UID == old.UID || !isReady(p) {
				return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
			}
			return true, nil
		})
	}
	waitSet(t, ns, time.Minute, "2 ready replicas", readyCount(2))
}

func TestAvailableReplicasHonourMinReadySeconds(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(3), parallel(), minReadySeconds(3600)))
	unavailable := func(set *appsv1.StatefulSet) error {
		if err := readyCount(3)(set); err != nil {
			return err
		}
		if set.Status.AvailableReplicas != 0 {
			return fmt.Errorf("want 0 available, got %d", set.Status.AvailableReplicas)
		}
		return nil
	}
	waitSet(t, ns, time.Minute, "3 ready, none available", unavailable)
	consistently(t, time.Second, "no pod is available before an hour of readiness", func() error { return unavailable(getSet(t, ns)) })
	longAgo := metav1.NewTime(time.Now().Add(-2 * time.Hour))
	for _, name := range []string{"web-0", "web-1"} {
		updatePod(t, ns, name, true, func(p *corev1.Pod) {
			for i := range p.Status.Conditions {
				if p.Status.Conditions[i].Type == corev1.PodReady {
					p.Status.Conditions[i].LastTransitionTime = longAgo
				}
			}
		})
	}
	waitSet(t, ns, 30*time.Second, "2 of 3 ready pods available", func(set *appsv1.StatefulSet) error {
		if st := set.Status; st.ReadyReplicas != 3 || st.AvailableReplicas != 2 {
			return fmt.Errorf("want ready 3, available 2")
		}
		return nil
	})
	// With a short minReadySeconds the last pod turns available without
	// any event: the controller must look again by itself.
	updateSet(t, ns, func(s *appsv1.StatefulSet) { s.Spec.MinReadySeconds = 2 })
	waitSet(t, ns, 30*time.Second, "all 3 available", func(set *appsv1.StatefulSet) error {
		if st := set.Status; st.ObservedGeneration < set.Generation || st.AvailableReplicas != 3 {
			return fmt.Errorf("want 3 available")
		}
		return nil
	})
}

func TestRejectedPodCreationLeavesReplicasAtTwo(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	quota := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "two-pods"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")}},
	}
	if _, err := client.CoreV1().ResourceQuotas(ns).Create(context.Background(), quota, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating quota: %v", err)
	}
	waitFor(t, 30*time.Second, "the quota to be counted", func() (bool, error) {
		q, err := client.CoreV1().ResourceQuotas(ns).Get(context.Background(), quota.Name, metav1.GetOptions{})
		return err == nil && q.Status.Hard != nil, err
	})
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(3), parallel()))
	waitSet(t, ns, time.Minute, "2 replicas, both ready", readyCount2of3)
	consistently(t, 2*time.Second, "status.replicas stays 2", func() error {
		if err := readyCount2of3(getSet(t, ns)); err != nil {
			return err
		}
		if names := podNames(t, ns); len(names) != 2 {
			return fmt.Errorf("want 2 pods, got %v", names)
		}
		return nil
	})
}

func readyCount2of3(set *appsv1.StatefulSet) error {
	if st := set.Status; st.Replicas != 2 || st.ReadyReplicas != 2 || st.ObservedGeneration < set.Generation {
		return fmt.Errorf("want replicas 2, ready 2")
	}
	return nil
}

func TestOrdinalsStartNamesPodsAndLabelsTheirIndex(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2), ordinalsStart(0)))
	steps := []struct {
		start, replicas int32
		want            []string
	}{
		{0, 2, []string{"web-0", "web-1"}},
		{4, 2, []string{"web-4", "web-5"}},
		{2, 2, []string{"web-2", "web-3"}},
		{2, 1, []string{"web-2"}},
	}
	for _, s := range steps {
		updateSet(t, ns, func(set *appsv1.StatefulSet) {
			set.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: s.start}
			set.Spec.Replicas = ptr(s.replicas)
		})
		waitSet(t, ns, time.Minute, fmt.Sprintf("pods %v", s.want), func(set *appsv1.StatefulSet) error {
			if err := readyCount(s.replicas)(set); err != nil {
				return err
			}
			if got := podNames(t, ns); !slices.Equal(got, s.want) {
				return fmt.Errorf("want pods %v, got %v", s.want, got)
			}
			return nil
		})
		for _, p := range listPods(t, ns) {
			want := p.Name[len("web-"):]
			if got := p.Labels[appsv1.PodIndexLabel]; got != want {
				t.Errorf("pod %s: label %s = %q, want %q", p.Name, appsv1.PodIndexLabel, got, want)
			}
			if got := p.Labels[appsv1.StatefulSetPodNameLabel]; got != p.Name {
				t.Errorf("pod %s: label %s = %q", p.Name, appsv1.StatefulSetPodNameLabel, got)
			}
		}
	}
}

func TestOrderedReadyCreatesInOrderAndDeletesInReverse(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(3)))
	waitSet(t, ns, time.Minute, "3 ready replicas", readyCount(3))
	want := []string{"ADDED web-0", "READY web-0", "ADDED web-1", "READY web-1", "ADDED web-2", "READY web-2"}
	if got := typedNames(rec.Events(evAdded, evReady)); !slices.Equal(got, want) {
		t.Fatalf("scale-up: want events %v, got %v", want, got)
	}
	mark := rec.Mark()
	updateSet(t, ns, setReplicas(0))
	waitSet(t, ns, time.Minute, "no replicas", readyCount(0))
	waitFor(t, 30*time.Second, "all pods gone", func() (bool, error) { return len(listPods(t, ns)) == 0, nil })
	want = []string{"TERMINATING web-2", "DELETED web-2", "TERMINATING web-1", "DELETED web-1", "TERMINATING web-0", "DELETED web-0"}
	if got := typedNames(rec.Since(mark, evTerminating, evDeleted)); !slices.Equal(got, want) {
		t.Fatalf("scale-down: want events %v, got %v", want, got)
	}
}

func typedNames(events []podEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type + " " + e.Name
	}
	return out
}

func TestOrderedReadyHaltsWhileAPodIsNotReady(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2)))
	good := waitSet(t, ns, time.Minute, "2 ready replicas", settled).Status.UpdateRevision
	// The rollout replaces web-1 with a pod that never turns Ready.
	updateSet(t, ns, podAnnotation(behaviorKey, "never-ready"))
	waitFor(t, 30*time.Second, "web-1 at the broken revision", func() (bool, error) {
		p, ok := getPod(t, ns, "web-1")
		if !ok || podRev(p) == good || p.Status.Phase != corev1.PodRunning {
			return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		}
		return true, nil
	})
	updateSet(t, ns, setReplicas(3))
	consistently(t, 3*time.Second, "nothing proceeds past unready web-1", func() error {
		if names := podNames(t, ns); !slices.Equal(names, []string{"web-0", "web-1"}) {
			return fmt.Errorf("want only web-0 and web-1, got %s", describePods(listPods(t, ns)))
		}
		if p, _ := getPod(t, ns, "web-0"); p == nil || podRev(p) != good || p.DeletionTimestamp != nil {
			return fmt.Errorf("web-0 was touched: %s", describePods(listPods(t, ns)))
		}
		return nil
	})
	// Forced rollback as upstream documents it: revert, then delete the
	// stuck pod by hand.
	updateSet(t, ns, func(s *appsv1.StatefulSet) { delete(s.Spec.Template.Annotations, behaviorKey) })
	deletePod(t, ns, "web-1")
	set := waitSet(t, ns, time.Minute, "3 ready replicas at the good revision", settled)
	if set.Status.UpdateRevision != good {
		t.Fatalf("reverting the template should reuse revision %s, got %s", good, set.Status.UpdateRevision)
	}
}

func TestParallelRunsToCompletionWithUnhealthyPods(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(3), parallel(), podAnnotation(behaviorKey, "never-ready")))
	waitSet(t, ns, time.Minute, "3 unready replicas", func(set *appsv1.StatefulSet) error {
		if st := set.Status; st.Replicas != 3 || st.ReadyReplicas != 0 {
			return fmt.Errorf("want replicas 3, ready 0")
		}
		return nil
	})
	updateSet(t, ns, setReplicas(0))
	waitSet(t, ns, time.Minute, "no replicas", readyCount(0))
	waitFor(t, 30*time.Second, "all pods gone", func() (bool, error) {
		return len(listPods(t, ns)) == 0, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
	})
}

func TestAdoptsOrphansAndReleasesPodsWhoseLabelsStopMatching(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	set := createSet(t, webSet(ns, replicas(2), parallel()))
	waitSet(t, ns, time.Minute, "2 ready replicas", readyCount(2))
	controlledBy := func(name string, want bool) func() (bool, error) {
		before, _ := getPod(t, ns, name)
		return func() (bool, error) {
			p, ok := getPod(t, ns, name)
			if !ok || p.UID != before.UID {
				return false, fmt.Errorf("pod %s was replaced: %s", name, describePods(listPods(t, ns)))
			}
			ref := metav1.GetControllerOf(p)
			got := ref != nil && ref.UID == set.UID
			return got == want, fmt.Errorf("pod %s controller %v", name, ref)
		}
	}
	orphan := controlledBy("web-0", true)
	updatePod(t, ns, "web-0", false, func(p *corev1.Pod) { p.OwnerReferences = nil })
	waitFor(t, 30*time.Second, "web-0 to be adopted again", orphan)

	released := controlledBy("web-1", false)
	updatePod(t, ns, "web-1", false, func(p *corev1.Pod) { p.Labels["app"] = "released" })
	waitFor(t, 30*time.Second, "web-1 to be released", released)

	adopted := controlledBy("web-1", true)
	updatePod(t, ns, "web-1", false, func(p *corev1.Pod) { p.Labels["app"] = "nginx" })
	waitFor(t, 30*time.Second, "web-1 to be adopted again", adopted)
	waitSet(t, ns, time.Minute, "2 ready replicas", readyCount(2))
}

func TestScaleSubresourceScalesTheSet(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(1), parallel()))
	waitSet(t, ns, time.Minute, "1 ready replica", readyCount(1))
	sets := client.AppsV1().StatefulSets(ns)
	scale, err := sets.GetScale(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting scale: %v", err)
	}
	if scale.Spec.Replicas != 1 || scale.Status.Replicas != 1 || scale.Status.Selector != "app=nginx" {
		t.Fatalf("scale = spec %d status %d selector %q, want 1, 1, app=nginx", scale.Spec.Replicas, scale.Status.Replicas, scale.Status.Selector)
	}
	scale.Spec.Replicas = 3
	if _, err := sets.UpdateScale(context.Background(), setName, scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating scale: %v", err)
	}
	waitSet(t, ns, time.Minute, "3 ready replicas", readyCount(3))
	if _, err := sets.Patch(context.Background(), setName, types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatalf("patching scale: %v", err)
	}
	waitSet(t, ns, time.Minute, "2 ready replicas", readyCount(2))
	got, err := sets.GetScale(context.Background(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting scale: %v", err)
	}
	if want := (autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=nginx"}); got.Status != want {
		t.Fatalf("scale status = %+v, want %+v", got.Status, want)
	}
}
