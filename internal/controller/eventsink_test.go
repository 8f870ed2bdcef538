package controller

import (
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

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
