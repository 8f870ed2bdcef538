package invariant

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// recreateClaim is a deletion out of scale-down order under Recreate that
// only the update revision can excuse: the controller makes the update
// revision of a spec it has not seen before, deletes every pod of an
// older one at once, and only then writes the status that names it. So
// the claim waits, up to Options.Window after the deletion, for a status
// of a generation the controller could have acted on (one of the window
// before it) that names an update revision other than the pod's; none
// found, it is a violation of RuleOrderedScaleDown.
type recreateClaim struct {
	st       *setTrack
	ev       Event
	object   string
	revision string
	gens     map[int64]bool
	message  string
}

// awaitRecreate holds a scale-down violation of a set whose every version
// of the window has the Recreate strategy until a status settles it (see
// recreateClaim); any other is reported at once.
func (r *replay) awaitRecreate(ev Event, st *setTrack, specs []*appsv1.StatefulSet, pod *corev1.Pod, format string, args ...any) {
	object := key(pod.Namespace, pod.Name)
	if !allSpecs(specs, st.recreate) {
		r.violate(RuleOrderedScaleDown, object, ev, format, args...)
		return
	}
	gens := map[int64]bool{}
	for _, s := range specs {
		gens[s.Generation] = true
	}
	r.recreateClaims = append(r.recreateClaims, recreateClaim{st: st, ev: ev, object: object, revision: pod.Labels[RevisionLabel],
		gens: gens, message: sprintf(format, args...)})
}

// settleRecreate settles the claims of st with version set, observed at
// at: a status that names another update revision excuses a claim, the
// end of its window condemns it.
func (r *replay) settleRecreate(st *setTrack, set *appsv1.StatefulSet, at time.Time) {
	kept := r.recreateClaims[:0]
	for _, c := range r.recreateClaims {
		switch {
		case c.st != st:
			kept = append(kept, c)
		case at.After(c.ev.Time.Add(r.opts.Window)):
			r.violate(RuleOrderedScaleDown, c.object, c.ev, "%s", c.message)
		case c.gens[set.Status.ObservedGeneration] && set.Status.UpdateRevision != "" && set.Status.UpdateRevision != c.revision:
		default:
			kept = append(kept, c)
		}
	}
	r.recreateClaims = kept
}

// closeRecreate condemns the claims no status settled by the end of the
// history.
func (r *replay) closeRecreate() {
	for _, c := range r.recreateClaims {
		r.violate(RuleOrderedScaleDown, c.object, c.ev, "%s", c.message)
	}
	r.recreateClaims = nil
}
