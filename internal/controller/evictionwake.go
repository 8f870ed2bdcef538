package controller

import (
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// refusedIn returns, by set key, the pods of namespace ns whose eviction
// was refused and is not due yet.
func (e evictions) refusedIn(ns string) map[string][]string {
	now := e.now()
	out := map[string][]string{}
	e.states.each(func(key string, st *setState) {
		if _, setNS, _, ok := setkind.ParseKey(key); !ok || setNS != ns {
			return
		}
		for name, r := range st.refusals {
			if now.Before(r.RetryAt) {
				out[key] = append(out[key], name)
			}
		}
	})
	return out
}

// due makes the refusals of pods of the set due now, so that the next
// plan asks for their evictions again; it reports whether one was not
// due. The count of refusals in a row is kept: a budget that refuses
// again sends the backoff on from where it was.
func (e evictions) due(setKey string, pods []string) bool {
	now, changed := e.now(), false
	e.states.read(setKey, func(st *setState) {
		for _, name := range pods {
			if r, ok := st.refusals[name]; ok && now.Before(r.RetryAt) {
				r.RetryAt = now
				st.refusals[name] = r
				changed = true
			}
		}
	})
	return changed
}
