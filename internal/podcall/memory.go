package podcall

import (
	"sync"
	"time"
)

// hookCall is what the caller remembers of one pod's hook: a call under
// way, and the last attempt made, so that a plan made before that
// attempt's outcome reached the cache does not repeat it.
type hookCall struct {
	inFlight bool
	attempt  int32
	at       time.Time
}

// hookMemory is how long an ended call is remembered: far longer than the
// cache takes to show its outcome.
const hookMemory = 10 * time.Minute

// callMemory is every set's hook calls under way and made, by set key and
// then by pod UID|hook, under a lock of its own: no other mechanism's
// memory waits on it. A deleted set's calls go at once (forget).
type callMemory struct {
	mu   sync.Mutex
	sets map[string]map[string]hookCall
}

func newCallMemory() *callMemory { return &callMemory{sets: map[string]map[string]hookCall{}} }

// begin marks the call key of setKey under way and reports true, unless
// it is under way already or attempt was made. It first drops the set's
// ended calls older than hookMemory.
func (m *callMemory) begin(setKey, key string, attempt int32, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	calls := m.sets[setKey]
	if calls == nil {
		calls = map[string]hookCall{}
		m.sets[setKey] = calls
	}
	for k, c := range calls {
		if !c.inFlight && now.Sub(c.at) > hookMemory {
			delete(calls, k)
		}
	}
	c := calls[key]
	if c.inFlight || c.attempt >= attempt {
		return false
	}
	c.inFlight = true
	calls[key] = c
	return true
}

// end marks the call key of setKey ended; a recorded outcome (the pod
// holds it) makes attempt the last one made, at at. A set forgotten while
// the call was under way stays forgotten.
func (m *callMemory) end(setKey, key string, attempt int32, recorded bool, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	calls := m.sets[setKey]
	if calls == nil {
		return
	}
	c := calls[key]
	c.inFlight = false
	if recorded {
		c.attempt, c.at = attempt, at
	}
	calls[key] = c
}

// forget drops every call of a deleted set.
func (m *callMemory) forget(setKey string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sets, setKey)
}
