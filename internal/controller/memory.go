package controller

import (
	"sync"
	"time"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// A memory is what one mechanism remembers about sets between syncs, by
// set key, under a lock of its own, so that one mechanism never waits for
// another's. Every memory is registered, when it is made, with the
// controller's memories, which forget a deleted set in every one at once:
// a memory made any other way fails TestEveryMemoryIsForgottenWithItsSet.
type memory interface {
	// forget drops everything the memory holds about key.
	forget(key string)
	// has reports whether the memory holds anything about key.
	has(key string) bool
}

// memories is the list of a controller's memories.
type memories struct {
	mu  sync.Mutex
	all []memory
}

// register adds m to the memories a deletion forgets, and returns it.
func register[M memory](ms *memories, m M) M {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.all = append(ms.all, m)
	return m
}

// forget drops everything about a deleted set, from every memory.
func (ms *memories) forget(key string) {
	ms.mu.Lock()
	all := ms.all
	ms.mu.Unlock()
	for _, m := range all {
		m.forget(key)
	}
}

// perSet is a memory of one value of type T per set. Callers keep the
// functions they pass short: no API calls, no sleeping, and no calls back
// into the same memory.
type perSet[T any] struct {
	mu   sync.Mutex
	sets map[string]*T
}

var _ memory = (*perSet[int])(nil)

// newPerSet is a memory of T per set, registered with ms.
func newPerSet[T any](ms *memories) *perSet[T] {
	return register(ms, &perSet[T]{sets: map[string]*T{}})
}

// update runs f on key's value, making a zero one first if needed.
func (m *perSet[T]) update(key string, f func(v *T)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.sets[key]
	if v == nil {
		v = new(T)
		m.sets[key] = v
	}
	f(v)
}

// read runs f on key's value if there is one, and reports whether there
// was. f may change the value.
func (m *perSet[T]) read(key string, f func(v *T)) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.sets[key]
	if v == nil {
		return false
	}
	f(v)
	return true
}

// each runs f on every set's value, by key, under the lock.
func (m *perSet[T]) each(f func(key string, v *T)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, v := range m.sets {
		f(key, v)
	}
}

func (m *perSet[T]) forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.sets, key)
}

func (m *perSet[T]) has(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sets[key] != nil
}

// remember makes the controller's memories of sets, each registered, but
// the status writer's and the hook caller's, which New makes beside the
// writer and the caller.
func (c *Controller) remember() {
	ms := &memories{}
	c.memories = ms
	c.deferred = statusDeferrals{held: newPerSet[deferral](ms)}
	c.exp = newExpectations(ms, time.Now)
	c.evictions = evictions{refusals: newPerSet[setRefusals](ms), now: time.Now}
	c.warnings, c.extStored = newPerSet[warned](ms), newPerSet[*v1alpha1.StatefulSet](ms)
	c.gauges, c.paces = newPerSet[rolloutGauges](ms), newPaces(ms)
	c.builts, c.revCaches, c.configs = newPerSet[*built](ms), newPerSet[revCache](ms), newPerSet[configState](ms)
}
