package controller

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

func status(gen int64, ready int32, update string) appsv1.StatefulSetStatus {
	return appsv1.StatefulSetStatus{ObservedGeneration: gen, Replicas: 3, ReadyReplicas: ready, CurrentRevision: "a", UpdateRevision: update}
}

func TestOnlyCountChangesAreHeldAndNotForLong(t *testing.T) {
	d := statusDeferrals{held: newPerSet[deferral](&memories{})}
	t0 := time.Unix(1000, 0)
	const bound = 3 * time.Second
	held := func(key string, stored, want appsv1.StatefulSetStatus, at time.Time) bool {
		_, ok := d.hold(key, stored, want, at, bound)
		return ok
	}
	if held("ns/s", status(1, 1, "a"), status(1, 1, "a"), t0) {
		t.Error("an unchanged status is held (nothing to write)")
	}
	if held("ns/s", status(1, 1, "a"), status(2, 1, "a"), t0) {
		t.Error("a new observedGeneration is held")
	}
	if held("ns/s", status(1, 1, "a"), status(1, 1, "b"), t0) {
		t.Error("a new updateRevision is held")
	}
	if held("ns/s", status(0, 0, "a"), status(1, 1, "a"), t0) {
		t.Error("a new set's first status is held")
	}
	if _, ok := d.hold("ns/z", status(1, 1, "a"), status(1, 2, "a"), t0, 0); ok {
		t.Error("held with a zero bound")
	}
	if left, ok := d.hold("ns/s", status(1, 1, "a"), status(1, 2, "a"), t0, bound); !ok || left != bound {
		t.Errorf("a count-only change: held %t for %s, want held for %s", ok, left, bound)
	}
	if left, ok := d.hold("ns/s", status(1, 1, "a"), status(1, 3, "a"), t0.Add(bound-time.Second), bound); !ok || left != time.Second {
		t.Errorf("within the bound: held %t for %s, want held for 1s more", ok, left)
	}
	if held("ns/s", status(1, 1, "a"), status(1, 3, "a"), t0.Add(bound)) {
		t.Error("a status held for the bound is held longer")
	}
	if !held("ns/other", status(1, 1, "a"), status(1, 2, "a"), t0.Add(bound)) {
		t.Error("another set's deferral is not its own")
	}
	d.done("ns/s")
	if !held("ns/s", status(1, 1, "a"), status(1, 2, "a"), t0.Add(time.Hour)) {
		t.Error("after a write the bound starts again")
	}
}

func TestStatusBounds(t *testing.T) {
	done := appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, UpdatedReplicas: 3,
		CurrentReplicas: 3, CurrentRevision: "b", UpdateRevision: "b"}
	rolling := done
	rolling.CurrentRevision, rolling.CurrentReplicas, rolling.UpdatedReplicas = "a", 1, 2
	starting := done
	starting.ReadyReplicas, starting.AvailableReplicas = 2, 2
	waiting := rolling
	waiting.AvailableReplicas = 2
	// before is st as it was before one more pod was created: news no
	// observer acts on.
	before := func(st appsv1.StatefulSetStatus) appsv1.StatefulSetStatus {
		st.Replicas--
		return st
	}
	// unready is st as it was before one more pod turned Ready.
	unready := func(st appsv1.StatefulSetStatus) appsv1.StatefulSetStatus {
		st.ReadyReplicas--
		return st
	}
	created := starting
	created.Replicas, created.ReadyReplicas, created.AvailableReplicas, created.UpdatedReplicas, created.CurrentReplicas = 2, 1, 1, 2, 2
	replaced := rolling
	replaced.Replicas, replaced.ReadyReplicas, replaced.AvailableReplicas, replaced.CurrentReplicas = 2, 2, 2, 0
	for _, tc := range []struct {
		name       string
		busy, idle bool
		from, st   appsv1.StatefulSetStatus
		want       time.Duration
	}{
		{"finished, limiter idle: write at once", false, true, before(done), done, 0},
		{"finished, limiter busy: write at once", true, true, before(done), done, 0},
		{"rolling, limiter idle: write at once", false, false, before(rolling), rolling, 0},
		{"a pod not ready yet, limiter idle: write at once", false, false, before(starting), starting, 0},
		{"rolling, limiter busy", true, false, before(rolling), rolling, DefaultStatusHold},
		{"held at the partition, every pod available, nothing to do: write at once", false, true, before(rolling), rolling, 0},
		{"held at the partition, limiter busy: write at once", true, true, before(rolling), rolling, 0},
		{"held at the partition, a pod Ready but not yet Available, limiter idle", false, true, before(waiting), waiting, 0},
		{"held at the partition, a pod Ready but not yet Available, limiter busy", true, true, unready(waiting), waiting, statusDebounce},
		{"held at the partition, a pod not ready yet", true, true, before(starting), starting, DefaultStatusHold},
		{"a pod turned Ready, limiter busy: the debounce", true, false, created, starting, statusDebounce},
		{"a pod turned Available, limiter busy: the debounce", true, true, waiting, rolling, 0},
		{"a pod no longer Ready, limiter busy: write at once", true, false, done, starting, 0},
		{"a pod no longer Ready, limiter idle: write at once", false, false, done, starting, 0},
		{"a pod deleted to be replaced, limiter busy: write at once", true, false, rolling, replaced, 0},
		{"scaled down by one, limiter busy: write at once", true, false, starting, created, 0},
	} {
		if got := statusBound(tc.busy, DefaultStatusHold, tc.from, tc.st, 3, tc.idle); got != tc.want {
			t.Errorf("%s: bound %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := statusBound(true, DefaultStatusHold, before(done), done, 4, true); got != DefaultStatusHold {
		t.Errorf("a status short of a scale-up to 4, under load: bound %s, want the hold %s (it is not complete)", got, DefaultStatusHold)
	}
	if got := statusBound(true, 0, before(rolling), rolling, 3, false); got != statusDebounce {
		t.Errorf("a hold of 0 under load: bound %s, want the debounce %s", got, statusDebounce)
	}
	if got := statusBound(true, 5*time.Second, before(done), done, 3, false); got != 0 {
		t.Errorf("a complete status under load with a hold of 5s: bound %s, want 0", got)
	}
}

func TestAHeldStatusIsWhatTheNextSyncPlansFrom(t *testing.T) {
	d := statusDeferrals{held: newPerSet[deferral](&memories{})}
	t0 := time.Unix(1000, 0)
	if _, ok := d.pending("ns/s", 1); ok {
		t.Fatal("a status is pending before any was held")
	}
	first, second := status(1, 2, "a"), status(1, 3, "a")
	first.CurrentReplicas, second.CurrentReplicas = 2, 1
	d.hold("ns/s", status(1, 1, "a"), first, t0, time.Second)
	d.hold("ns/s", status(1, 1, "a"), second, t0.Add(100*time.Millisecond), time.Second)
	if got, ok := d.pending("ns/s", 1); !ok || got.CurrentReplicas != 1 || got.ReadyReplicas != 3 {
		t.Errorf("pending %+v (%t), want the latest held status", got, ok)
	}
	if _, ok := d.pending("ns/s", 2); ok {
		t.Error("a status held for generation 1 is pending for generation 2")
	}
	d.done("ns/s")
	if _, ok := d.pending("ns/s", 1); ok {
		t.Error("a written status is still pending")
	}
}
