package invariant

import (
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// responderName is how Ordinal's controller names itself among a pod's
// eviction responders. The checker spells it out itself rather than
// borrow the controller's constant: an oracle shares no code with what it
// judges.
const responderName = "apps.ordinal.dev/statefulset-controller"

// applyEviction records, by target pod UID, whether an Eviction
// (lifecycle.k8s.io, KEP-4563) made the controller its active responder:
// an extended set answers such an eviction request by moving the pod, as
// it moves one off a drained node.
func (r *replay) applyEviction(ev Event, e *lifecyclev1alpha1.Eviction) {
	if e.Spec.Target.Pod == nil {
		return
	}
	uid := e.Spec.Target.Pod.UID
	asks := ev.Type != watch.Deleted && controllerActive(e)
	if r.asked[uid] == nil {
		if !asks {
			return
		}
		r.asked[uid] = &timeline[bool]{}
	}
	r.asked[uid].add(ev.Time, asks)
}

// controllerActive reports whether e's active responder is the
// controller.
func controllerActive(e *lifecyclev1alpha1.Eviction) bool {
	for _, t := range e.Status.TargetResponders {
		if t.Name == responderName && t.State == lifecyclev1alpha1.ResponderStateActive {
			return true
		}
	}
	return false
}

// evictionAsked reports whether an Eviction of the pod with uid had the
// controller as its active responder in some version of the window
// before ev.
func (r *replay) evictionAsked(ev Event, uid types.UID) bool {
	tl := r.asked[uid]
	if tl == nil {
		return false
	}
	for _, asks := range tl.within(ev.Time.Add(-r.opts.Window), ev.Time) {
		if asks {
			return true
		}
	}
	return false
}
