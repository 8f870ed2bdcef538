package bench

import (
	"testing"
	"time"
)

func TestRestPollCoversTheTokenBucketsRefill(t *testing.T) {
	for _, c := range []struct {
		name  string
		sc    scenario
		qps   float32
		burst int
		want  time.Duration
	}{
		{"controller-manager defaults", scenario{}, 20, 30, 2 * time.Second},
		{"a deep bucket", scenario{}, 20, 100, 5500 * time.Millisecond},
		{"unthrottled", scenario{}, 0, 0, 2 * time.Second},
		{"a shallow bucket", scenario{}, 50, 10, 2 * time.Second},
		{"an idle scenario", scenario{idle: time.Minute}, 20, 30, quietPoll},
	} {
		if got := restPoll(c.sc, c.qps, c.burst); got != c.want {
			t.Errorf("%s: restPoll = %v, want %v", c.name, got, c.want)
		}
	}
}
