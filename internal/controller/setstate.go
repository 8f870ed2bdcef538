package controller

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// setState is everything the controller remembers about one set between
// syncs. Each part belongs to one mechanism, which reads and writes it
// only through setStates; all of it goes at once when the set is deleted
// (setStates.forget), so a new kind of per-set memory is a new field here
// and cannot be forgotten on its own. The calls to pods keep theirs apart
// (internal/podcall), under their own lock; the sync that forgets a
// deleted set's state forgets its calls beside it (podcall.Caller.Forget).
type setState struct {
	// expected holds, by pod name, the pod writes the informer cache has
	// not shown yet (expectations).
	expected map[string]expectation
	// warnings holds, by signature, when each warning was last planned
	// (freshWarnings).
	warnings map[string]time.Time
	// stored is the set as the controller's last status write returned it
	// (apiStatus); extended is the same for an extended set
	// (writeExtendedStatus).
	stored   *appsv1.StatefulSet
	extended *v1alpha1.StatefulSet
	// held is the latest status change held back, and heldSince when the
	// holding began; nil when nothing is held (statusDeferrals).
	held      *appsv1.StatefulSetStatus
	heldSince time.Time
	// heldForLoad marks a status held because the client was busy, to be
	// looked at again once the client is quiet (quietWatch).
	heldForLoad bool
	// rollout is the set's rollout gauges as of its last sync
	// (rolloutCollector); nil before the first.
	rollout *rolloutGauges
	// pace is the set's sync bucket as of its last sync (pacing.go); nil
	// before the first.
	pace *syncPace
	// built is what the last sync made from the cache's records, kept
	// while a large set changes (built.go); nil otherwise.
	built *built
	// revs is what the set's revisions cost to work out, kept between
	// syncs (revcache.go); nil before the first.
	revs *revCache
	// refusals are the set's refused evictions by pod name, and
	// refusedFresh says one came since the last sync looked (eviction.go).
	refusals     map[string]refusal
	refusedFresh bool
	// config is what the set's last sync read of the ConfigMaps and
	// Secrets its revisions hold (configrev.go); nil for a set without
	// spec.configRevisions.
	config *configState
}

// setStates holds every set's state by key (namespace/name) under one
// lock. Callers keep the functions they pass short: no API calls, no
// sleeping, and no calls back into setStates.
type setStates struct {
	mu   sync.Mutex
	sets map[string]*setState
}

func newSetStates() *setStates { return &setStates{sets: map[string]*setState{}} }

// update runs f on key's state, making an empty one first if needed.
func (s *setStates) update(key string, f func(st *setState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sets[key]
	if st == nil {
		st = &setState{}
		s.sets[key] = st
	}
	f(st)
}

// read runs f on key's state if there is one, and reports whether there
// was. f may change the state.
func (s *setStates) read(key string, f func(st *setState)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sets[key]
	if st == nil {
		return false
	}
	f(st)
	return true
}

// each runs f on every set's state, by key, under the lock.
func (s *setStates) each(f func(key string, st *setState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, st := range s.sets {
		f(key, st)
	}
}

// forget drops everything about a deleted set.
func (s *setStates) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sets, key)
}

// rollouts returns a copy of every set's rollout gauges, by key.
func (s *setStates) rollouts() map[string]rolloutGauges {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]rolloutGauges, len(s.sets))
	for key, st := range s.sets {
		if st.rollout != nil {
			out[key] = *st.rollout
		}
	}
	return out
}
