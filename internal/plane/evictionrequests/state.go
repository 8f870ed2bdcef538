package evictionrequests

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Evictor is the default responder every pod's Eviction ends with: the
// imperative evictor, which calls the pod's eviction subresource.
const Evictor = lifecyclev1alpha1.EvictionResponderImperativeEviction

// evictorPriority is the priority the API reserves for Evictor.
const evictorPriority int32 = 100

// HeartbeatDeadline is how long an active responder may go without a
// heartbeat (or, before its first, since it became active) before the
// eviction passes to the next one: the API's 20 minutes.
const HeartbeatDeadline = 20 * time.Minute

// facts is what a reconcile of one Eviction knows of its target and its
// requests.
type facts struct {
	// Gone: no pod of the target's name and UID exists; GoneFor is how
	// long the controller has seen it so.
	Gone    bool
	GoneFor time.Duration
	// Phase is the pod's phase; Succeeded or Failed end the eviction.
	Phase corev1.PodPhase
	// Terminating: the pod has a deletion timestamp.
	Terminating bool
	// Asking: some EvictionRequest of the target still asks (intent
	// Eviction).
	Asking bool
	Now    time.Time
}

// initialStatus is the status of a new Eviction of pod: its responders
// (the pod's, then Evictor) highest priority first, the first Active
// since now, the others Inactive, and a responder status for each.
func initialStatus(pod *corev1.Pod, generation int64, now time.Time) lifecyclev1alpha1.EvictionStatus {
	st := lifecyclev1alpha1.EvictionStatus{ObservedGeneration: ptr.To(max(generation, 1))}
	for _, r := range pod.Spec.EvictionResponders {
		st.TargetResponders = append(st.TargetResponders, lifecyclev1alpha1.TargetResponder{Name: r.Name, Priority: ptr.To(ptr.Deref(r.Priority, 0))})
	}
	st.TargetResponders = append(st.TargetResponders, lifecyclev1alpha1.TargetResponder{Name: Evictor, Priority: ptr.To(evictorPriority)})
	slices.SortStableFunc(st.TargetResponders, compareResponders)
	stamp := metav1.NewTime(now.Truncate(time.Second))
	for i := range st.TargetResponders {
		st.TargetResponders[i].State = lifecyclev1alpha1.ResponderStateInactive
		rs := lifecyclev1alpha1.ResponderStatus{Name: st.TargetResponders[i].Name}
		if i == 0 {
			st.TargetResponders[i].State = lifecyclev1alpha1.ResponderStateActive
			rs.StartTime = &stamp
		}
		st.Responders = append(st.Responders, rs)
	}
	return st
}

// compareResponders orders responders as the API selects them: higher
// priority first; at equal priority by domain, its top labels compared
// first (io before org), a shorter domain first, then by the key after
// the slash.
func compareResponders(a, b lifecyclev1alpha1.TargetResponder) int {
	if c := cmp.Compare(ptr.Deref(b.Priority, -1), ptr.Deref(a.Priority, -1)); c != 0 {
		return c
	}
	ad, ak := splitName(a.Name)
	bd, bk := splitName(b.Name)
	if c := slices.Compare(ad, bd); c != 0 {
		return c
	}
	return strings.Compare(ak, bk)
}

// splitName splits a domain-prefixed key into its domain's labels, top
// label first, and its key.
func splitName(name string) ([]string, string) {
	domain, key, _ := strings.Cut(name, "/")
	labels := strings.Split(domain, ".")
	slices.Reverse(labels)
	return labels, key
}

// order is the indexes of st's target responders in selection order.
func order(st *lifecyclev1alpha1.EvictionStatus) []int {
	idx := make([]int, len(st.TargetResponders))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return compareResponders(st.TargetResponders[a], st.TargetResponders[b]) })
	return idx
}

// outcome is what a reconcile asks of the controller after advance.
type outcome struct {
	// Evict: the imperative evictor is active and the pod is not going:
	// call its eviction subresource.
	Evict bool
	// Wake is when to look again without an event (the active
	// responder's heartbeat deadline); 0 for none.
	Wake time.Duration
}

// completionGrace is how long, once the pod is gone, the eviction waits
// for its active responder to report its completion (the API lets an
// eviction end with a responder Completed only once it has) before it
// ends with the responder Interrupted.
const completionGrace = 10 * time.Second

// advance moves st one reconcile on, as the API's validation allows:
// the eviction ends once the pod is gone or finished (TargetEvicted), or
// no request asks any more (Failed, CanceledDueToNoRequesters), the
// active responder then reaching a final state in the same write (after
// its own completion, which the evictor writes at once and another
// responder is given completionGrace to write); an
// active responder that completed, or missed its heartbeat deadline,
// hands over to the next (Completed or Interrupted), unless the pod is
// terminating, which is awaited; with none left it fails
// (NoFurtherResponder).
func advance(st *lifecyclev1alpha1.EvictionStatus, f facts) outcome {
	if final(st) {
		return outcome{}
	}
	now := metav1.NewTime(f.Now.Truncate(time.Second))
	ended := f.Gone || f.Phase == corev1.PodSucceeded || f.Phase == corev1.PodFailed
	if a := active(st); ended && a >= 0 {
		if rs := responderStatus(st, st.TargetResponders[a].Name); rs.CompletionTime == nil {
			switch {
			case rs.Name == Evictor:
				evicted(st, f.Now, "the pod is gone or has finished")
				return outcome{}
			case f.GoneFor < completionGrace && f.Gone:
				return outcome{Wake: completionGrace - f.GoneFor}
			}
		}
	}
	switch {
	case f.Gone:
		finish(st, lifecyclev1alpha1.ResponderStateInterrupted, lifecyclev1alpha1.EvictionConditionTargetEvicted,
			lifecyclev1alpha1.EvictionConditionReasonPodDeleted, "the pod is gone", now)
		return outcome{}
	case f.Phase == corev1.PodSucceeded || f.Phase == corev1.PodFailed:
		finish(st, lifecyclev1alpha1.ResponderStateInterrupted, lifecyclev1alpha1.EvictionConditionTargetEvicted,
			lifecyclev1alpha1.EvictionConditionReasonPodTerminal, fmt.Sprintf("the pod has finished (%s)", f.Phase), now)
		return outcome{}
	case !f.Asking:
		finish(st, lifecyclev1alpha1.ResponderStateCanceled, lifecyclev1alpha1.EvictionConditionFailed,
			lifecyclev1alpha1.EvictionConditionReasonCanceledDueToNoRequesters, "no EvictionRequest asks for the eviction any more", now)
		return outcome{}
	}
	for {
		a := active(st)
		if a < 0 {
			return outcome{} // every responder has had its turn: the pod's end is awaited
		}
		rs := responderStatus(st, st.TargetResponders[a].Name)
		last := heartbeat(rs)
		switch {
		case rs.CompletionTime != nil && f.Terminating:
			return outcome{}
		case rs.CompletionTime != nil:
			handOver(st, a, lifecyclev1alpha1.ResponderStateCompleted, now)
			continue
		case !last.IsZero() && !f.Now.Before(last.Add(HeartbeatDeadline)):
			handOver(st, a, lifecyclev1alpha1.ResponderStateInterrupted, now)
			continue
		case st.TargetResponders[a].Name == Evictor:
			return outcome{Evict: !f.Terminating}
		}
		return outcome{Wake: last.Add(HeartbeatDeadline).Sub(f.Now)}
	}
}

// handOver ends the active responder a in state and makes the next in
// line Active since now, or fails the eviction when there is none.
func handOver(st *lifecyclev1alpha1.EvictionStatus, a int, state lifecyclev1alpha1.ResponderStateType, now metav1.Time) {
	st.TargetResponders[a].State = state
	seq := order(st)
	pos := slices.Index(seq, a)
	if pos+1 >= len(seq) {
		setCondition(st, lifecyclev1alpha1.EvictionConditionFailed, lifecyclev1alpha1.EvictionConditionReasonNoFurtherResponder,
			"every responder has had its turn and the pod is still there", now)
		return
	}
	next := seq[pos+1]
	st.TargetResponders[next].State = lifecyclev1alpha1.ResponderStateActive
	rs := responderStatus(st, st.TargetResponders[next].Name)
	if rs.StartTime == nil {
		rs.StartTime = &now
	}
}

// finish ends the eviction with a True condition, the active responder
// reaching Completed if it reported its completion, else state.
func finish(st *lifecyclev1alpha1.EvictionStatus, state lifecyclev1alpha1.ResponderStateType, cond lifecyclev1alpha1.EvictionConditionType,
	reason lifecyclev1alpha1.EvictionConditionReason, msg string, now metav1.Time) {
	if a := active(st); a >= 0 {
		if rs := responderStatus(st, st.TargetResponders[a].Name); rs.CompletionTime != nil {
			state = lifecyclev1alpha1.ResponderStateCompleted
		}
		st.TargetResponders[a].State = state
	}
	setCondition(st, cond, reason, msg, now)
}

func setCondition(st *lifecyclev1alpha1.EvictionStatus, cond lifecyclev1alpha1.EvictionConditionType, reason lifecyclev1alpha1.EvictionConditionReason, msg string, now metav1.Time) {
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: string(cond), Status: metav1.ConditionTrue, Reason: string(reason),
		Message: msg, LastTransitionTime: now, ObservedGeneration: ptr.Deref(st.ObservedGeneration, 0)})
}

// final reports whether the eviction has ended.
func final(st *lifecyclev1alpha1.EvictionStatus) bool {
	return meta.IsStatusConditionTrue(st.Conditions, string(lifecyclev1alpha1.EvictionConditionTargetEvicted)) ||
		meta.IsStatusConditionTrue(st.Conditions, string(lifecyclev1alpha1.EvictionConditionFailed))
}

// active is the index of the Active target responder, or -1.
func active(st *lifecyclev1alpha1.EvictionStatus) int {
	return slices.IndexFunc(st.TargetResponders, func(r lifecyclev1alpha1.TargetResponder) bool {
		return r.State == lifecyclev1alpha1.ResponderStateActive
	})
}

// responderStatus is the status of the responder name, added when st
// lacks it.
func responderStatus(st *lifecyclev1alpha1.EvictionStatus, name string) *lifecyclev1alpha1.ResponderStatus {
	if i := slices.IndexFunc(st.Responders, func(r lifecyclev1alpha1.ResponderStatus) bool { return r.Name == name }); i >= 0 {
		return &st.Responders[i]
	}
	st.Responders = append(st.Responders, lifecyclev1alpha1.ResponderStatus{Name: name})
	return &st.Responders[len(st.Responders)-1]
}

// heartbeat is the responder's last sign of life: its heartbeat, else
// the time it became active.
func heartbeat(rs *lifecyclev1alpha1.ResponderStatus) time.Time {
	switch {
	case rs.HeartbeatTime != nil:
		return rs.HeartbeatTime.Time
	case rs.StartTime != nil:
		return rs.StartTime.Time
	}
	return time.Time{}
}

// evicted records the imperative evictor's completion, saying msg.
func evicted(st *lifecyclev1alpha1.EvictionStatus, now time.Time, msg string) {
	rs := responderStatus(st, Evictor)
	stamp := metav1.NewTime(now.Truncate(time.Second))
	rs.CompletionTime, rs.Message = &stamp, ptr.To(msg)
}

// refused records an eviction the API server refused, the retries so
// far, and a heartbeat when the last is minHeartbeat old.
func refused(st *lifecyclev1alpha1.EvictionStatus, err error, retries int, now time.Time) {
	rs := responderStatus(st, Evictor)
	rs.Message = ptr.To(clip(fmt.Sprintf("could not evict the pod (%d retries so far): %v", retries, err)))
	if rs.HeartbeatTime == nil || now.Sub(rs.HeartbeatTime.Time) >= minHeartbeat {
		stamp := metav1.NewTime(now.Truncate(time.Second))
		rs.HeartbeatTime = &stamp
	}
}

// minHeartbeat is the API's advice: no heartbeats more often than this.
const minHeartbeat = 20 * time.Second

// clip bounds a responder message to the API's 4000 characters.
func clip(msg string) string {
	if len(msg) > 4000 {
		return msg[:3990] + " …"
	}
	return msg
}

// requestConditions are the conditions an EvictionRequest gets from its
// Eviction: TargetEvicted and Failed, copied.
func requestConditions(cur []metav1.Condition, ev *lifecyclev1alpha1.EvictionStatus) []metav1.Condition {
	out := slices.Clone(cur)
	for _, t := range []lifecyclev1alpha1.EvictionConditionType{lifecyclev1alpha1.EvictionConditionTargetEvicted, lifecyclev1alpha1.EvictionConditionFailed} {
		if c := meta.FindStatusCondition(ev.Conditions, string(t)); c != nil {
			meta.SetStatusCondition(&out, *c)
		}
	}
	return out
}

func equalStatus(a, b *lifecyclev1alpha1.EvictionStatus) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}

func equalConditions(a, b []metav1.Condition) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}
