package osts

import (
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// ResponderName is how Ordinal's controller names itself in the
// spec.evictionResponders of the extended kind's pods, and finds itself
// in an Eviction's targetResponders (KEP-4563): a domain-prefixed key
// outside the reserved *.k8s.io and *.kubernetes.io.
const ResponderName = "apps.ordinal.dev/statefulset-controller"

// ResponderPriority is the priority the API asks of the responder that
// is the pod's managing controller: 10000, which leaves room above for
// responders that preempt it and below for fallbacks (the API's own
// imperative evictor has 100).
const ResponderPriority int32 = 10000

// ActiveResponder reports whether ev's target is a pod and the
// controller is its active responder, with the index of its responder
// status; an Eviction that has ended (TargetEvicted or Failed) asks
// nothing more.
func ActiveResponder(ev *lifecyclev1alpha1.Eviction) (int, bool) {
	if ev.Spec.Target.Pod == nil || EvictionEnded(ev) {
		return 0, false
	}
	active := false
	for _, r := range ev.Status.TargetResponders {
		if r.Name == ResponderName && r.State == lifecyclev1alpha1.ResponderStateActive {
			active = true
		}
	}
	for i, r := range ev.Status.Responders {
		if r.Name == ResponderName && active && r.StartTime != nil {
			return i, true
		}
	}
	return 0, false
}

// EvictionEnded reports whether ev has ended: its target evicted, or
// failed.
func EvictionEnded(ev *lifecyclev1alpha1.Eviction) bool {
	for _, c := range ev.Status.Conditions {
		if (c.Type == string(lifecyclev1alpha1.EvictionConditionTargetEvicted) || c.Type == string(lifecyclev1alpha1.EvictionConditionFailed)) &&
			c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// EvictionRequests are the planner's eviction requests from the
// Evictions evs of one set's pods: those whose active responder is the
// controller, one per pod UID, each with the requesters that still ask.
func EvictionRequests(evs []*lifecyclev1alpha1.Eviction) []planner.EvictionRequest {
	var out []planner.EvictionRequest
	for _, ev := range evs {
		if _, ok := ActiveResponder(ev); !ok {
			continue
		}
		target := ev.Spec.Target.Pod
		dup := false
		for _, q := range out {
			dup = dup || q.UID == target.UID
		}
		if !dup {
			out = append(out, planner.EvictionRequest{Pod: target.Name, UID: target.UID, Requesters: requesters(ev)})
		}
	}
	return out
}

// requesters are the names of ev's requesters that still ask for the
// eviction.
func requesters(ev *lifecyclev1alpha1.Eviction) []string {
	var out []string
	for _, r := range ev.Status.Requesters {
		if r.Intent == lifecyclev1alpha1.RequesterIntentEviction {
			out = append(out, r.Name)
		}
	}
	return out
}
