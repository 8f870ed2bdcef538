package controller

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// builtMinPods is the smallest set whose built pods and claims are kept
// between syncs while it changes. Turning 1000 records back into pods and
// claims was half of such a set's sync (BenchmarkASyncOfAThousandPodSetAtRest),
// and at 50 pods, the ordered roll-out's size, keeping them takes a pod
// event from about 0.42 to 0.15 CPU ms and from 196 to 33 KB allocated
// (BenchmarkAPodEventOfAFiftyPodSetThatIsChanging). The many small sets of
// a cluster (5 pods each in the many-sets benchmark) stay below it, so
// their memory does not grow while they all change at once.
const builtMinPods = 20

// built holds the pods and claims one sync of a set made from the cache's
// records, by record. Records are never changed (a pod's new version is a
// new record), so while a record is in the cache the object made from it
// is still right, and nothing changes the objects the planner is given
// (planner.Input). A large set keeps the last sync's objects while it
// changes, so that a pod event costs one pod made, not one per pod of the
// set; it drops them once at rest, when they would only cost memory.
type built struct {
	pods   map[*podRecord]*corev1.Pod
	claims map[*claimRecord]*corev1.PersistentVolumeClaim
}

// builder makes a sync's objects, reusing those of the last sync.
type builder struct {
	last, next built
}

func newBuilder(last *built) *builder {
	b := &builder{next: built{pods: map[*podRecord]*corev1.Pod{}, claims: map[*claimRecord]*corev1.PersistentVolumeClaim{}}}
	if last != nil {
		b.last = *last
	}
	return b
}

func (b *builder) pod(r *podRecord) *corev1.Pod { return reuse(b.last.pods, b.next.pods, r, r.pod) }

func (b *builder) claim(r *claimRecord) *corev1.PersistentVolumeClaim {
	return reuse(b.last.claims, b.next.claims, r, r.claim)
}

// reuse returns the object last holds for record r, or a new one from
// build, and keeps it in next.
func reuse[R comparable, O any](last, next map[R]O, r R, build func() O) O {
	o, ok := last[r]
	if !ok {
		o = build()
	}
	next[r] = o
	return o
}

func (b *builder) pods(records []*podRecord) []*corev1.Pod {
	out := make([]*corev1.Pod, len(records))
	for i, r := range records {
		out[i] = b.pod(r)
	}
	return out
}

// keepBuilt keeps what b made for key's next sync when the set is large
// and its plan is not at rest, and forgets it otherwise. A set at rest
// also forgets its revision cache (revcache.go): its next sync may be
// minutes away, and a thousand idle sets would each hold their applied
// revisions for nothing.
// Both memories are the set's sync's alone (one worker at a time), so
// the two writes need no common lock.
func (c *Controller) keepBuilt(key string, b *builder, in planner.Input, plan planner.Plan) {
	rest := atRest(in, plan)
	var keep *built
	if len(in.Pods) >= builtMinPods && !rest {
		keep = &b.next
	}
	c.builts.update(key, func(last **built) { *last = keep })
	if rest {
		c.revCaches.forget(key)
	}
}

// lastBuilt returns what the last sync of key kept, or nil.
func (c *Controller) lastBuilt(key string) *built {
	var last *built
	c.builts.read(key, func(kept **built) { last = *kept })
	return last
}

// atRest reports whether a plan has nothing to do or wait for and its
// status says the set is complete.
func atRest(in planner.Input, plan planner.Plan) bool {
	for _, step := range plan.Steps {
		if len(step.Actions) > 0 {
			return false
		}
	}
	return len(plan.Waits) == 0 && complete(plan.Status, planner.Replicas(in.Set))
}
