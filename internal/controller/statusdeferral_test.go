package controller

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

func status(gen int64, ready int32, update string) appsv1.StatefulSetStatus {
	return appsv1.StatefulSetStatus{ObservedGeneration: gen, Replicas: 3, ReadyReplicas: ready, CurrentRevision: "a", UpdateRevision: update}
}

func TestOnlyCountChangesAreHeldAndNotForLong(t *testing.T) {
	var d statusDeferrals
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
	for _, tc := range []struct {
		name string
		busy bool
		st   appsv1.StatefulSetStatus
		want time.Duration
	}{
		{"finished, limiter idle: write at once", false, done, 0},
		{"finished, limiter busy: write at once", true, done, 0},
		{"rolling", false, rolling, statusDebounce},
		{"a pod not ready yet", false, starting, statusDebounce},
		{"rolling, limiter busy", true, rolling, DefaultStatusHold},
	} {
		if got := statusBound(tc.busy, DefaultStatusHold, tc.st, 3); got != tc.want {
			t.Errorf("%s: bound %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := statusBound(false, DefaultStatusHold, done, 4); got != statusDebounce {
		t.Errorf("a status short of a scale-up to 4 is complete (bound %s)", got)
	}
	if got := statusBound(true, 0, rolling, 3); got != statusDebounce {
		t.Errorf("a hold of 0 under load: bound %s, want the debounce %s", got, statusDebounce)
	}
	if got := statusBound(true, 5*time.Second, done, 3); got != 0 {
		t.Errorf("a complete status under load with a hold of 5s: bound %s, want 0", got)
	}
}

func TestTheLimiterIsBusyWhileARequestWaitsForAToken(t *testing.T) {
	cfg := &rest.Config{QPS: 5, Burst: 1}
	l := Throttle(cfg)
	if l == nil || cfg.RateLimiter != l {
		t.Fatal("Throttle did not install its limiter")
	}
	if err := l.Wait(context.Background()); err != nil { // takes the one token
		t.Fatal(err)
	}
	if l.Busy() {
		t.Fatal("busy with nobody waiting")
	}
	done := make(chan struct{})
	go func() { _ = l.Wait(context.Background()); close(done) }()
	sawBusy := false
	for deadline := time.Now().Add(150 * time.Millisecond); time.Now().Before(deadline) && !sawBusy; {
		sawBusy = l.Busy()
		time.Sleep(time.Millisecond)
	}
	<-done
	if !sawBusy {
		t.Error("never busy while a request waited for a token (5 QPS, burst 1)")
	}
	if l.Busy() {
		t.Error("still busy after the wait ended")
	}
	if Throttle(&rest.Config{QPS: 0}) != nil || (*Limiter)(nil).Busy() {
		t.Error("an unthrottled client gets a limiter or is busy")
	}
}

type countingSink struct{ created atomic.Int32 }

func (s *countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	s.created.Add(1)
	return e, nil
}
func (s *countingSink) Update(e *corev1.Event) (*corev1.Event, error) { return e, nil }
func (s *countingSink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) {
	return e, nil
}

func TestEventsWaitWhileBusyButAreAllWritten(t *testing.T) {
	var busy atomic.Bool
	busy.Store(true)
	inner := &countingSink{}
	sink := &yieldingSink{EventSink: inner, busy: busy.Load}
	go func() { time.Sleep(200 * time.Millisecond); busy.Store(false) }()
	began := time.Now()
	if _, err := sink.Create(&corev1.Event{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < 150*time.Millisecond {
		t.Errorf("the event went out after %s while the limiter was busy", took)
	}
	busy.Store(true)
	began = time.Now()
	_, _ = sink.Create(&corev1.Event{})
	if took := time.Since(began); took < maxEventYield || took > maxEventYield+time.Second {
		t.Errorf("with the limiter busy throughout, the event waited %s, want about %s", took, maxEventYield)
	}
	if n := inner.created.Load(); n != 2 {
		t.Errorf("%d events written, want 2", n)
	}
}

func TestAHeldStatusIsWhatTheNextSyncPlansFrom(t *testing.T) {
	var d statusDeferrals
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
