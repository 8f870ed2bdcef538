package podcall

import (
	"testing"
	"time"
)

// inFlight reports whether a call of setKey is under way.
func (m *callMemory) inFlight(setKey string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.sets[setKey] {
		if c.inFlight {
			return true
		}
	}
	return false
}

// A call is made once per attempt: not again while under way, not again
// once its outcome is recorded, again for a later attempt; an unrecorded
// outcome lets the next plan ask again.
func TestTheMemoryMakesEachAttemptOnce(t *testing.T) {
	m, now := newCallMemory(), time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"the first attempt begins", func() bool { return m.begin("ns/web", "uid|hook", 1, now) }, true},
		{"it does not begin again while under way", func() bool { return m.begin("ns/web", "uid|hook", 1, now) }, false},
		{"another pod's call begins", func() bool { return m.begin("ns/web", "uid2|hook", 1, now) }, true},
		{"an unrecorded attempt begins again", func() bool {
			m.end("ns/web", "uid|hook", 1, false, now)
			return m.begin("ns/web", "uid|hook", 1, now)
		}, true},
		{"a recorded attempt does not", func() bool {
			m.end("ns/web", "uid|hook", 1, true, now)
			return m.begin("ns/web", "uid|hook", 1, now)
		}, false},
		{"the next attempt begins", func() bool { return m.begin("ns/web", "uid|hook", 2, now) }, true},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: begin = %v, want %v", s.name, got, s.want)
		}
	}
}

// An ended call is remembered for hookMemory, then dropped.
func TestTheMemoryDropsOldCalls(t *testing.T) {
	m, now := newCallMemory(), time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	m.begin("ns/web", "uid|hook", 1, now)
	m.end("ns/web", "uid|hook", 1, true, now)
	if m.begin("ns/web", "uid|hook", 1, now.Add(hookMemory)) {
		t.Fatal("a call was made again within hookMemory of its outcome")
	}
	if !m.begin("ns/web", "uid|hook", 1, now.Add(hookMemory+time.Second)) {
		t.Fatal("a call older than hookMemory was still remembered")
	}
}

// Forget drops a deleted set's calls, and a call that ends afterwards
// does not bring them back.
func TestForgetDropsADeletedSetsCalls(t *testing.T) {
	m, now := newCallMemory(), time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	m.begin("ns/web", "uid|hook", 1, now)
	m.begin("ns/db", "uid3|hook", 1, now)
	c := &calls{hooks: &hookCaller{memory: m}}
	c.Forget("ns/web")
	m.end("ns/web", "uid|hook", 1, true, now)
	if _, ok := m.sets["ns/web"]; ok {
		t.Error("the deleted set's calls are still remembered")
	}
	if !m.inFlight("ns/db") {
		t.Error("another set's call was forgotten")
	}
	if !m.begin("ns/web", "uid|hook", 1, now) {
		t.Error("a set of the same name, made again, found the deleted one's call")
	}
}
