package controller

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

var answerNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *metav1.Time { return ptr.To(metav1.NewTime(answerNow.Add(d))) }

func TestAnswerReportsAMoveWithAHeartbeatEveryInterval(t *testing.T) {
	moving := planner.EvictionResponse{Pod: "db-0", UID: "u", Outcome: planner.ResponseMoving, Message: "moving db-0 off n0 (eviction requested by x.io/y)"}
	started := lifecyclev1alpha1.ResponderStatus{Name: osts.ResponderName, StartTime: at(-time.Minute)}

	first, changed, next := answer(started, moving, answerNow)
	if !changed || !first.HeartbeatTime.Equal(at(0)) || *first.Message != moving.Message || first.CompletionTime != nil || next != HeartbeatInterval {
		t.Fatalf("first answer %+v changed %v next %s, want a heartbeat now and the message", first, changed, next)
	}
	same, changed, next := answer(first, moving, answerNow.Add(20*time.Second))
	if changed || next != 40*time.Second || !same.HeartbeatTime.Equal(at(0)) {
		t.Errorf("20s later: changed %v next %s heartbeat %v, want no write and the next heartbeat in 40s", changed, next, same.HeartbeatTime)
	}
	progress := moving
	progress.Message = "moving db-0 off n0: waits for the switchover"
	upd, changed, _ := answer(first, progress, answerNow.Add(20*time.Second))
	if !changed || *upd.Message != progress.Message || !upd.HeartbeatTime.Equal(at(0)) {
		t.Errorf("new progress: %+v changed %v, want the message written and the heartbeat kept", upd, changed)
	}
	beat, changed, _ := answer(first, moving, answerNow.Add(HeartbeatInterval))
	if !changed || !beat.HeartbeatTime.Equal(at(HeartbeatInterval)) {
		t.Errorf("an interval later: %+v changed %v, want a new heartbeat", beat, changed)
	}
}

func TestAnswerCompletesAMovedOrDeclinedPodOnce(t *testing.T) {
	started := lifecyclev1alpha1.ResponderStatus{Name: osts.ResponderName, StartTime: at(-time.Minute), HeartbeatTime: at(-time.Second)}
	for _, outcome := range []planner.ResponseOutcome{planner.ResponseMoved, planner.ResponseDeclined} {
		done, changed, next := answer(started, planner.EvictionResponse{Outcome: outcome, Message: string(outcome)}, answerNow)
		if !changed || !done.CompletionTime.Equal(at(0)) || next != 0 || *done.Message != string(outcome) {
			t.Errorf("%s: %+v changed %v next %s, want completed now", outcome, done, changed, next)
		}
		again, changed, _ := answer(done, planner.EvictionResponse{Outcome: planner.ResponseMoving, Message: "later"}, answerNow.Add(time.Hour))
		if changed || *again.Message != string(outcome) {
			t.Errorf("%s: a completed status changed: %+v", outcome, again)
		}
	}
}

func TestAnswerClipsALongMessageToTheAPIsBound(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	got, _, _ := answer(lifecyclev1alpha1.ResponderStatus{}, planner.EvictionResponse{Outcome: planner.ResponseMoving, Message: long}, answerNow)
	if n := len(*got.Message); n > maxResponderMessage || !strings.HasSuffix(*got.Message, "…") {
		t.Errorf("message of %d bytes, want at most %d ending in an ellipsis", n, maxResponderMessage)
	}
}

// eviction is an Eviction of pod uid u with the controller's responder
// in state, started.
func eviction(name, pod string, uid string, state lifecyclev1alpha1.ResponderStateType, conds ...metav1.Condition) *lifecyclev1alpha1.Eviction {
	return &lifecyclev1alpha1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec:       lifecyclev1alpha1.EvictionSpec{Target: lifecyclev1alpha1.EvictionTarget{Pod: &lifecyclev1alpha1.EvictionPodReference{Name: pod, UID: types.UID("u" + uid)}}},
		Status: lifecyclev1alpha1.EvictionStatus{
			Conditions: conds,
			Requesters: []lifecyclev1alpha1.Requester{{Name: "ordinal.dev/node-drain", Intent: "Eviction"}, {Name: "gone.io/x", Intent: "Withdrawn"}},
			TargetResponders: []lifecyclev1alpha1.TargetResponder{{Name: osts.ResponderName, Priority: ptr.To(osts.ResponderPriority), State: state},
				{Name: "imperative-eviction.k8s.io/evictor", Priority: ptr.To[int32](100), State: "Inactive"}},
			Responders: []lifecyclev1alpha1.ResponderStatus{{Name: osts.ResponderName, StartTime: at(-time.Minute)}, {Name: "imperative-eviction.k8s.io/evictor"}},
		},
	}
}

func TestRequestsAreTheSetsPodsEvictionsWhoseActiveResponderIsTheController(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{evictionSetIndex: indexEvictionBySet})
	for _, ev := range []*lifecyclev1alpha1.Eviction{
		eviction("a", "db-0", "0", "Active"),
		eviction("b", "db-1", "1", "Inactive"),
		eviction("c", "db-2", "2", "Active", metav1.Condition{Type: "TargetEvicted", Status: "True"}),
		eviction("d", "web-0", "9", "Active"),
		eviction("e", "db-0", "0", "Active"), // a second Eviction of the same pod
	} {
		if err := idx.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	r := &evictionResponder{index: idx}
	got := r.requests("ns", "db")
	if len(got) != 1 || got[0].Pod != "db-0" || got[0].UID != "u0" || strings.Join(got[0].Requesters, ",") != "ordinal.dev/node-drain" {
		t.Errorf("requests %+v, want db-0's alone, asked by ordinal.dev/node-drain", got)
	}
	var none *evictionResponder
	if none.requests("ns", "db") != nil {
		t.Error("a controller without the API found requests")
	}
}

func TestWithResponderNamesTheControllerOnceAndLeavesThePodAlone(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{EvictionResponders: []corev1.EvictionResponder{{Name: "backup.example.com/agent", Priority: ptr.To[int32](20000)}}}}
	got := withResponder(pod)
	if len(got.Spec.EvictionResponders) != 2 || got.Spec.EvictionResponders[1].Name != osts.ResponderName || *got.Spec.EvictionResponders[1].Priority != 10000 {
		t.Errorf("responders %+v, want the pod's then the controller at 10000", got.Spec.EvictionResponders)
	}
	if len(pod.Spec.EvictionResponders) != 1 {
		t.Errorf("the pod it was given changed: %+v", pod.Spec.EvictionResponders)
	}
	if again := withResponder(got); len(again.Spec.EvictionResponders) != 2 {
		t.Errorf("named twice: %+v", again.Spec.EvictionResponders)
	}
	full := &corev1.Pod{}
	for range 10 {
		full.Spec.EvictionResponders = append(full.Spec.EvictionResponders, corev1.EvictionResponder{})
	}
	grouped := &corev1.Pod{Spec: corev1.PodSpec{SchedulingGroup: &corev1.PodSchedulingGroup{}}}
	if withResponder(full) != full || withResponder(grouped) != grouped {
		t.Error("a pod with ten responders, or in a scheduling group, got one more")
	}
}
