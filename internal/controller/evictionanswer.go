package controller

import (
	"time"
	"unicode/utf8"

	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// HeartbeatInterval is how often the controller reports that a move it
// answers is still in progress: the API passes an eviction to the next
// responder after 20 minutes without a heartbeat and asks for none more
// often than every 20 seconds; a minute leaves the deadline far away
// across a controller restart or two.
const HeartbeatInterval = time.Minute

// maxResponderMessage is the API's bound on a responder's message.
const maxResponderMessage = 4000

// answer is the responder status that reports resp, given the status cur
// the Eviction holds: a heartbeat now if cur has none (also on a first
// answer that completes) or its last one is HeartbeatInterval old, the move's progress as the message, and the
// completion time once the pod is gone or going (Moved) or the set leaves
// it to the next responder (Declined). changed says whether it differs
// from cur; next is when to heartbeat again, 0 once complete. A status
// already complete is the API's to keep: it never changes.
func answer(cur lifecyclev1alpha1.ResponderStatus, resp planner.EvictionResponse, now time.Time) (out lifecyclev1alpha1.ResponderStatus, changed bool, next time.Duration) {
	if cur.CompletionTime != nil {
		return cur, false, 0
	}
	out = *cur.DeepCopy()
	stamp := metav1.NewTime(now.Truncate(time.Second))
	msg := clip(resp.Message)
	if out.Message == nil || *out.Message != msg {
		out.Message, changed = &msg, true
	}
	if resp.Outcome != planner.ResponseMoving {
		// A first answer that completes carries a heartbeat too: the
		// responder did answer.
		if out.HeartbeatTime == nil {
			out.HeartbeatTime = &stamp
		}
		out.CompletionTime = &stamp
		return out, true, 0
	}
	next = HeartbeatInterval
	if out.HeartbeatTime == nil || now.Sub(out.HeartbeatTime.Time) >= HeartbeatInterval {
		out.HeartbeatTime, changed = &stamp, true
	} else {
		next = HeartbeatInterval - now.Sub(out.HeartbeatTime.Time)
	}
	return out, changed, next
}

// clip bounds a message to what the API accepts.
func clip(msg string) string {
	if len(msg) <= maxResponderMessage {
		return msg
	}
	cut := maxResponderMessage - len("…")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}
