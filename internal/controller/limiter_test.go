package controller

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

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
