package controller

import (
	"github.com/ordinal-sh/ordinal/internal/setkind"
)

// refusedIn returns, by set key, the pods of namespace ns whose eviction
// was refused and is not due yet.
func (e evictions) refusedIn(ns string) map[string][]string {
	now := e.now()
	out := map[string][]string{}
	e.refusals.each(func(key string, st *setRefusals) {
		if _, setNS, _, ok := setkind.ParseKey(key); !ok || setNS != ns {
			return
		}
		for name, r := range st.byPod {
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
	e.refusals.read(setKey, func(st *setRefusals) {
		for _, name := range pods {
			if r, ok := st.byPod[name]; ok && now.Before(r.RetryAt) {
				r.RetryAt = now
				st.byPod[name] = r
				changed = true
			}
		}
	})
	return changed
}
