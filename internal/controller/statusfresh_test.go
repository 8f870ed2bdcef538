package controller

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// freshnessCase is a Parallel set of three at one revision whose stored
// status counts stored and whose pods are web-0 and web-1, Ready, and
// web-2, created but not Ready.
func freshnessCase(t *testing.T, busy bool, stored func(*appsv1.StatefulSetStatus)) (sync func() time.Duration, written func() appsv1.StatefulSetStatus) {
	t.Helper()
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: set.Generation, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
		CurrentReplicas: 3, UpdatedReplicas: 3, CurrentRevision: rev.Name, UpdateRevision: rev.Name, CollisionCount: ptr.To[int32](0)}
	stored(&set.Status)
	opts := Options{Workers: 1, StatusHold: DefaultStatusHold, Busy: func() bool { return busy }}
	c, client := newTestControllerWith(t, opts, nil, set, rev,
		testgen.Pod(set, 0, testgen.At(rev)), testgen.Pod(set, 1, testgen.At(rev)),
		testgen.Pod(set, 2, testgen.At(rev), testgen.NotReady(testgen.Epoch)))
	ctx := context.Background()
	sync = func() time.Duration {
		t.Helper()
		requeue, err := c.sync(ctx, set.Namespace+"/"+set.Name)
		if err != nil {
			t.Fatal(err)
		}
		return requeue
	}
	written = func() appsv1.StatefulSetStatus {
		t.Helper()
		got, err := client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	return sync, written
}

// Observers (`kubectl rollout status`, `helm --wait`, dashboards) read a
// status as the truth about the set's pods. One that still counts a pod
// Ready after it stopped being Ready tells them the set is healthier than
// it is, and a short dip (two pods replaced at once in a Parallel
// roll-out) could pass unseen within any hold. A count going down is
// written in the sync that sees it, whether or not the client is busy, as
// upstream writes every change.
func TestAStatusThatCountsFewerReadyPodsIsWrittenAtOnce(t *testing.T) {
	for _, busy := range []bool{false, true} {
		t.Run(map[bool]string{false: "client at rest", true: "client busy"}[busy], func(t *testing.T) {
			sync, written := freshnessCase(t, busy, func(*appsv1.StatefulSetStatus) {})
			sync()
			if st := written(); st.ReadyReplicas != 2 || st.AvailableReplicas != 2 {
				t.Errorf("status %s; want web-2 no longer counted Ready or Available (2 each) at once", describe(st))
			}
		})
	}
}

// A pod turning Ready is what a waiting observer acts on next, so an
// increase of the Ready count waits at most statusDebounce, which gathers
// a burst of pods turning Ready into one write, even while the client is
// busy; the longer load hold is for changes no observer acts on.
func TestAReadyPodIsCountedWithinTheDebounceUnderLoad(t *testing.T) {
	sync, written := freshnessCase(t, true, func(st *appsv1.StatefulSetStatus) { st.ReadyReplicas, st.AvailableReplicas = 1, 1 })
	requeue := sync()
	if requeue <= 0 || requeue > statusDebounce {
		t.Errorf("the sync holding web-1's readiness comes back after %s; want within the debounce %s", requeue, statusDebounce)
	}
	if st := written(); st.ReadyReplicas != 1 {
		t.Errorf("status %s; want the increase held for the debounce (ready still 1)", describe(st))
	}
}

// While the client has tokens to spare a status write delays no pod
// write, so every change a sync finds is written in that sync, as
// upstream writes it: `kubectl get sts -w` counts each pod as it turns
// Ready, not a second later.
func TestAtRestEveryChangeIsWrittenInTheSyncThatFindsIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored func(*appsv1.StatefulSetStatus)
	}{
		{"a pod turned Ready", func(st *appsv1.StatefulSetStatus) { st.ReadyReplicas, st.AvailableReplicas = 1, 1 }},
		{"a pod created", func(st *appsv1.StatefulSetStatus) {
			st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas = 2, 2, 2, 2, 2
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sync, written := freshnessCase(t, false, tc.stored)
			sync()
			if st := written(); st.Replicas != 3 || st.ReadyReplicas != 2 || st.AvailableReplicas != 2 {
				t.Errorf("status %s; want web-0..2 counted, web-0 and web-1 Ready, in the sync that found them", describe(st))
			}
		})
	}
}

// A pod created but not yet Ready changes status.replicas (and the
// revision counts) only: no observer acts on that, so while the client's
// requests queue for tokens the change may wait for the load hold, which
// is where the status-write savings of a large scale-up come from.
func TestACreatedPodMayWaitForTheLoadHold(t *testing.T) {
	sync, written := freshnessCase(t, true, func(st *appsv1.StatefulSetStatus) {
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas = 2, 2, 2, 2, 2
	})
	if requeue := sync(); requeue != DefaultStatusHold {
		t.Errorf("the sync holding web-2's creation comes back after %s; want after the load hold %s", requeue, DefaultStatusHold)
	}
	if st := written(); st.Replicas != 2 {
		t.Errorf("status %s; want web-2's creation held (replicas still 2)", describe(st))
	}
}

// The extended kind's own counts follow the same rule as apps/v1's: fewer
// pods at the update revision Ready or Available than observers were told
// is written at once; more may wait.
func TestAnExtendedStatusCountingFewerUpdatedReadyPodsIsNotHeld(t *testing.T) {
	was := v1alpha1.StatefulSetStatus{UpdatedReadyReplicas: 2, UpdatedAvailableReplicas: 2}
	for _, tc := range []struct {
		name         string
		ready, avail int32
		holdable     bool
	}{
		{"the same counts", 2, 2, true},
		{"one more Ready and Available", 3, 3, true},
		{"one fewer Ready", 1, 1, false},
		{"one fewer Available", 2, 1, false},
	} {
		want := was
		want.UpdatedReadyReplicas, want.UpdatedAvailableReplicas = tc.ready, tc.avail
		if got := extendedHoldable(was, want); got != tc.holdable {
			t.Errorf("%s: holdable %t, want %t", tc.name, got, tc.holdable)
		}
	}
}
