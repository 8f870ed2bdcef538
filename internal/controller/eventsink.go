package controller

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

// maxEventYield bounds how long one event waits for the rate limiter to
// have no queue.
const maxEventYield = 2 * time.Second

// yieldingSink delays each event, by at most maxEventYield, while the
// client's requests queue for tokens, so events fill the rate limiter's
// idle moments instead of pushing pod writes back. Events are written in
// order; while the client stays saturated they go out at about one per
// maxEventYield, and once the recorder's queue (client-go keeps 1000) is
// full it drops new ones, as it does whenever a sink falls behind.
type yieldingSink struct {
	record.EventSink
	busy func() bool
}

func (s *yieldingSink) wait() {
	for deadline := time.Now().Add(maxEventYield); s.busy() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *yieldingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	s.wait()
	return s.EventSink.Create(e)
}

func (s *yieldingSink) Update(e *corev1.Event) (*corev1.Event, error) {
	s.wait()
	return s.EventSink.Update(e)
}

func (s *yieldingSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	s.wait()
	return s.EventSink.Patch(e, data)
}
