package integration

import (
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// podsAt accepts the set when each named pod exists, is Ready, not
// terminating, and runs the given revision.
func podsAt(t *testing.T, ns string, want map[string]string) func() (bool, error) {
	return func() (bool, error) {
		for name, rev := range want {
			p, ok := getPod(t, ns, name)
			if !ok || !isReady(p) || p.DeletionTimestamp != nil || podRev(p) != rev {
				return false, fmt.Errorf("want %v, pods %s", want, describePods(listPods(t, ns)))
			}
		}
		return true, nil
	}
}

func TestRollingUpdateGoesInReverseOrdinalOrderAndRollsBack(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(3)))
	rev1 := waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision

	mark := rec.Mark()
	updateSet(t, ns, setImage(imageNew))
	set := waitSet(t, ns, time.Minute, "the update to finish", updatedFrom(rev1))
	rev2 := set.Status.UpdateRevision
	wantGone := []podEvent{{evTerminating, "web-2", rev1}, {evTerminating, "web-1", rev1}, {evTerminating, "web-0", rev1}}
	if got := rec.Since(mark, evTerminating); !slices.Equal(got, wantGone) {
		t.Errorf("update: want deletions %v, got %v", wantGone, got)
	}
	wantNew := []podEvent{{evAdded, "web-2", rev2}, {evAdded, "web-1", rev2}, {evAdded, "web-0", rev2}}
	if got := rec.Since(mark, evAdded); !slices.Equal(got, wantNew) {
		t.Errorf("update: want creations %v, got %v", wantNew, got)
	}
	for _, p := range listPods(t, ns) {
		if img := p.Spec.Containers[0].Image; img != imageNew {
			t.Errorf("pod %s runs %s, want %s", p.Name, img, imageNew)
		}
	}

	mark = rec.Mark()
	updateSet(t, ns, setImage(imageOld))
	set = waitSet(t, ns, time.Minute, "the rollback to finish", updatedFrom(rev2))
	if set.Status.UpdateRevision != rev1 {
		t.Fatalf("rollback: updateRevision %s, want the prior revision %s", set.Status.UpdateRevision, rev1)
	}
	revs := listRevisions(t, ns)
	if len(revs) != 2 || revs[0].Name != rev2 || revs[0].Revision != 2 || revs[1].Name != rev1 || revs[1].Revision != 3 {
		t.Fatalf("rollback: want revisions %s(2) and %s(3), got %v", rev2, rev1, describeRevisions(revs))
	}
	wantBack := []podEvent{{evAdded, "web-2", rev1}, {evAdded, "web-1", rev1}, {evAdded, "web-0", rev1}}
	if got := rec.Since(mark, evAdded); !slices.Equal(got, wantBack) {
		t.Errorf("rollback: want creations %v, got %v", wantBack, got)
	}
}

// updatedFrom accepts a settled set whose update revision is not old.
func updatedFrom(old string) func(*appsv1.StatefulSet) error {
	return func(set *appsv1.StatefulSet) error {
		if set.Status.UpdateRevision == old {
			return fmt.Errorf("update revision is still %s", old)
		}
		return settled(set)
	}
}

func describeRevisions(revs []appsv1.ControllerRevision) []string {
	out := make([]string, len(revs))
	for i, r := range revs {
		out[i] = fmt.Sprintf("%s(%d)", r.Name, r.Revision)
	}
	return out
}

func TestCanaryAndPhasedRolloutFollowThePartition(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(3), partition(4)))
	rev1 := waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision
	updateSet(t, ns, setImage(imageNew))
	rev2 := waitSet(t, ns, 30*time.Second, "a new update revision", func(set *appsv1.StatefulSet) error {
		if set.Status.ObservedGeneration < set.Generation || set.Status.UpdateRevision == rev1 {
			return fmt.Errorf("no new update revision yet")
		}
		return nil
	}).Status.UpdateRevision
	all := map[string]string{"web-0": rev1, "web-1": rev1, "web-2": rev1}
	consistently(t, 2*time.Second, "a partition above replicas updates nothing", func() error {
		if ok, err := podsAt(t, ns, all)(); !ok {
			return err
		}
		if st := getSet(t, ns).Status; st.UpdatedReplicas != 0 || st.CurrentRevision != rev1 {
			return fmt.Errorf("status %s", describeStatus(st))
		}
		return nil
	})

	updateSet(t, ns, setPartition(2))
	canary := map[string]string{"web-0": rev1, "web-1": rev1, "web-2": rev2}
	waitFor(t, time.Minute, "only web-2 updated", podsAt(t, ns, canary))
	consistently(t, time.Second, "the canary stays alone", func() error {
		if ok, err := podsAt(t, ns, canary)(); !ok {
			return err
		}
		return nil
	})
	for _, name := range []string{"web-0", "web-2"} {
		old, _ := getPod(t, ns, name)
		deletePod(t, ns, name)
		waitFor(t, time.Minute, name+" recreated at its partition's revision", func() (bool, error) {
			p, ok := getPod(t, ns, name)
			if ok && p.UID == old.UID {
				return false, fmt.Errorf("%s not yet replaced", name)
			}
			return podsAt(t, ns, canary)()
		})
	}

	updateSet(t, ns, setPartition(1))
	waitFor(t, time.Minute, "web-1 and web-2 updated", podsAt(t, ns, map[string]string{"web-0": rev1, "web-1": rev2, "web-2": rev2}))
	updateSet(t, ns, setPartition(0))
	set := waitSet(t, ns, time.Minute, "the phased roll-out to finish", settled)
	if set.Status.CurrentRevision != rev2 {
		t.Fatalf("currentRevision %s, want %s", set.Status.CurrentRevision, rev2)
	}
}

func TestOnDeleteReplacesOnlyDeletedPodsAndPromotesWhenAllAreUpdated(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(3), onDelete()))
	rev1 := waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision
	updateSet(t, ns, setImage(imageNew))
	rev2 := waitSet(t, ns, 30*time.Second, "a new update revision", func(set *appsv1.StatefulSet) error {
		if set.Status.ObservedGeneration < set.Generation || set.Status.UpdateRevision == rev1 {
			return fmt.Errorf("no new update revision yet")
		}
		return nil
	}).Status.UpdateRevision
	consistently(t, 2*time.Second, "OnDelete updates nothing by itself", func() error {
		if ok, err := podsAt(t, ns, map[string]string{"web-0": rev1, "web-1": rev1, "web-2": rev1})(); !ok {
			return err
		}
		return nil
	})
	deletePod(t, ns, "web-1")
	waitFor(t, time.Minute, "web-1 back at the update revision", podsAt(t, ns, map[string]string{"web-0": rev1, "web-1": rev2, "web-2": rev1}))
	waitSet(t, ns, 30*time.Second, "status with one updated pod", func(set *appsv1.StatefulSet) error {
		if st := set.Status; st.UpdatedReplicas != 1 || st.CurrentReplicas != 2 || st.CurrentRevision != rev1 || st.ReadyReplicas != 3 {
			return fmt.Errorf("want updated 1, current 2 at %s", rev1)
		}
		return nil
	})
	deletePod(t, ns, "web-0")
	deletePod(t, ns, "web-2")
	// currentRevision is promoted for OnDelete too, as upstream does from
	// 1.37 (#73492; 1.36 left it at rev1).
	set := waitSet(t, ns, time.Minute, "all updated and currentRevision promoted", settled)
	if set.Status.CurrentRevision != rev2 {
		t.Fatalf("currentRevision %s, want %s", set.Status.CurrentRevision, rev2)
	}
}

func TestMaxUnavailableTwoDeletesTwoPodsAtOnceHighestFirst(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createSet(t, webSet(ns, replicas(4), maxUnavailable(2)))
	rev1 := waitSet(t, ns, time.Minute, "4 ready replicas", settled).Status.UpdateRevision
	mark := rec.Mark()
	updateSet(t, ns, setImage(imageNew))
	rev2 := waitSet(t, ns, time.Minute, "the update to finish", updatedFrom(rev1)).Status.UpdateRevision
	want := []podEvent{
		{evTerminating, "web-3", rev1}, {evTerminating, "web-2", rev1},
		{evAdded, "web-2", rev2}, {evAdded, "web-3", rev2},
		{evTerminating, "web-1", rev1}, {evTerminating, "web-0", rev1},
		{evAdded, "web-0", rev2}, {evAdded, "web-1", rev2},
	}
	if got := rec.Since(mark, evTerminating, evAdded); !slices.Equal(got, want) {
		t.Fatalf("want %v, got %v", want, got)
	}
}

// TestBrokenOldRevisionPodIsReplaced is upstream #137409: with
// maxUnavailable 1, an old-revision pod that is already unavailable used
// up the budget in 1.35/1.36 and was never replaced. Ordinal replaces it,
// as 1.37 does.
func TestBrokenOldRevisionPodIsReplaced(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rev1, _ := breakThenRevert(t, ns)
	set := waitSet(t, ns, time.Minute, "the broken old-revision pod to be replaced", settled)
	if set.Status.UpdateRevision != rev1 {
		t.Fatalf("updateRevision %s, want the reverted-to %s", set.Status.UpdateRevision, rev1)
	}
}

// breakThenRevert runs a Parallel set with maxUnavailable 1 into a broken
// rollout (web-2 never turns Ready) and reverts the template, leaving
// web-2 as a broken pod at an old revision. It returns the good and the
// broken revision.
func breakThenRevert(t *testing.T, ns string) (good, broken string) {
	t.Helper()
	createSet(t, webSet(ns, replicas(3), parallel(), maxUnavailable(1)))
	good = waitSet(t, ns, time.Minute, "3 ready replicas", settled).Status.UpdateRevision
	updateSet(t, ns, podAnnotation(behaviorKey, "never-ready"))
	waitFor(t, time.Minute, "web-2 at the broken revision", func() (bool, error) {
		p, ok := getPod(t, ns, "web-2")
		if !ok || podRev(p) == good || p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		}
		broken = podRev(p)
		return true, nil
	})
	consistently(t, 2*time.Second, "the rollout stalls behind unready web-2", func() error {
		if ok, err := podsAt(t, ns, map[string]string{"web-0": good, "web-1": good})(); !ok {
			return err
		}
		return nil
	})
	updateSet(t, ns, func(s *appsv1.StatefulSet) { delete(s.Spec.Template.Annotations, behaviorKey) })
	return good, broken
}

func TestPartitionedPodHeldByFinalizerComesBackAtTheOldRevision(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createSet(t, webSet(ns, replicas(2), parallel(), partition(1)))
	rev1 := waitSet(t, ns, time.Minute, "2 ready replicas", settled).Status.UpdateRevision
	updatePod(t, ns, "web-0", false, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdFinalizer) })
	t.Cleanup(func() { releaseHold(ns, "web-0") })
	updateSet(t, ns, setImage(imageNew))
	var rev2 string
	waitFor(t, time.Minute, "web-1 updated", func() (bool, error) {
		p, ok := getPod(t, ns, "web-1")
		if !ok || podRev(p) == rev1 || !isReady(p) {
			return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		}
		rev2 = podRev(p)
		return true, nil
	})
	old, _ := getPod(t, ns, "web-0")
	deletePod(t, ns, "web-0")
	updatePod(t, ns, "web-0", true, func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })
	updatePod(t, ns, "web-0", false, func(p *corev1.Pod) { p.Finalizers = slices.DeleteFunc(p.Finalizers, isHold) })
	waitFor(t, time.Minute, "web-0 recreated at the old revision", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		if !ok || p.UID == old.UID || !isReady(p) {
			return false, fmt.Errorf("pods %s", describePods(listPods(t, ns)))
		}
		if podRev(p) != rev1 || p.Spec.Containers[0].Image != imageOld {
			return false, fmt.Errorf("web-0 recreated at %s (%s), want %s (%s)", podRev(p), p.Spec.Containers[0].Image, rev1, imageOld)
		}
		return true, nil
	})
	if p, _ := getPod(t, ns, "web-1"); p == nil || podRev(p) != rev2 {
		t.Fatalf("web-1 should stay at %s: %s", rev2, describePods(listPods(t, ns)))
	}
}
