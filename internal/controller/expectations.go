package controller

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// expectationTTL bounds how long a sync waits for the cache to show one of
// our own writes; past it the write is assumed lost (e.g. the object was
// deleted and re-created by someone else meanwhile) and the cache is trusted.
const expectationTTL = 30 * time.Second

// expectations remember, per set, the pod writes the informer cache has not
// shown yet, so a sync never acts on a cache that predates our own last
// create or delete: that is how a lagging cache would make the controller
// create a pod twice, delete a replacement, or skip an ordering step.
// The expectations of each set are a memory of their own (memory.go).
type expectations struct {
	// expected holds, by set and pod name, the pod writes the informer
	// cache has not shown yet.
	expected *perSet[podWrites]
	// gone holds the UIDs of pods the cache saw deleted, for the TTL, in
	// case the deletion is observed before created records the pod. It is
	// not per set, and mu guards it alone.
	mu   sync.Mutex
	gone map[types.UID]time.Time
	now  func() time.Time
}

// podWrites are one set's expectations, by pod name.
type podWrites map[string]expectation

type expectation struct {
	uid     types.UID
	deleted bool
	at      time.Time
}

func newExpectations(ms *memories, now func() time.Time) *expectations {
	return &expectations{expected: newPerSet[podWrites](ms), gone: map[types.UID]time.Time{}, now: now}
}

// created records that pod (with its UID) was created, unless the cache
// already saw it deleted.
func (e *expectations) created(setKey string, pod *corev1.Pod) {
	e.mu.Lock()
	_, seenGone := e.gone[pod.UID]
	e.mu.Unlock()
	if !seenGone {
		e.put(setKey, pod.Name, expectation{uid: pod.UID, at: e.now()})
	}
}

// observedDeletion records that the cache saw the pod with uid removed. It
// satisfies a creation expectation for that pod: a pod created and deleted
// (by a user, the node, an eviction) between two syncs is never shown by
// the cache, and waiting for it would stall the set for the whole TTL.
func (e *expectations) observedDeletion(setKey, name string, uid types.UID) {
	e.mu.Lock()
	now := e.now()
	for u, at := range e.gone {
		if now.Sub(at) > expectationTTL {
			delete(e.gone, u)
		}
	}
	e.gone[uid] = now
	e.mu.Unlock()
	e.expected.read(setKey, func(w *podWrites) {
		if x, ok := (*w)[name]; ok && !x.deleted && x.uid == uid {
			delete(*w, name)
		}
	})
}

// deleted records that the pod with uid was deleted.
func (e *expectations) deleted(setKey, name string, uid types.UID) {
	e.put(setKey, name, expectation{uid: uid, deleted: true, at: e.now()})
}

func (e *expectations) put(setKey, name string, x expectation) {
	e.expected.update(setKey, func(w *podWrites) {
		if *w == nil {
			*w = podWrites{}
		}
		(*w)[name] = x
	})
}

// pending returns the name of a pod whose write the cache does not show
// yet, or "" when the cache is at least as new as every write. lookup reads
// the cache. Satisfied and expired expectations are dropped.
func (e *expectations) pending(setKey string, lookup func(name string) (*corev1.Pod, bool)) string {
	now := e.now()
	pending := ""
	e.expected.read(setKey, func(w *podWrites) {
		for name, x := range *w {
			pod, found := lookup(name)
			if x.satisfiedBy(pod, found) || now.Sub(x.at) > expectationTTL {
				delete(*w, name)
				continue
			}
			pending = name
			return
		}
	})
	return pending
}

func (x expectation) satisfiedBy(pod *corev1.Pod, found bool) bool {
	if x.deleted {
		return !found || pod.UID != x.uid || pod.DeletionTimestamp != nil
	}
	return found && (pod.UID == x.uid || x.uid == "")
}
