package evictionrequests

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// podWith is a pod naming responders, name=priority.
func podWith(responders map[string]int32) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "ns", UID: "u1"}}
	for name, prio := range responders {
		p.Spec.EvictionResponders = append(p.Spec.EvictionResponders, corev1.EvictionResponder{Name: name, Priority: ptr.To(prio)})
	}
	return p
}

// states renders the target responders as "name=State".
func states(st *lifecyclev1alpha1.EvictionStatus) []string {
	var out []string
	for _, r := range st.TargetResponders {
		out = append(out, r.Name+"="+string(r.State))
	}
	return out
}

func TestANewEvictionActivatesTheHighestPriorityResponderFirst(t *testing.T) {
	st := initialStatus(podWith(map[string]int32{"apps.ordinal.dev/statefulset-controller": 10000, "backup.example.com/agent": 20000}), 1, t0)
	want := []string{"backup.example.com/agent=Active", "apps.ordinal.dev/statefulset-controller=Inactive", Evictor + "=Inactive"}
	if diff := cmp.Diff(want, states(&st)); diff != "" {
		t.Errorf("target responders (-want +got):\n%s", diff)
	}
	if len(st.Responders) != 3 || st.Responders[0].StartTime == nil || st.Responders[1].StartTime != nil {
		t.Errorf("responder statuses %+v, want one each, the active one started", st.Responders)
	}
}

func TestRespondersOfEqualPriorityGoByDomainTopLabelFirst(t *testing.T) {
	rs := []lifecyclev1alpha1.TargetResponder{{Name: "a.example.org/x", Priority: ptr.To[int32](5000)},
		{Name: "z.example.io/x", Priority: ptr.To[int32](5000)}, {Name: "example.io/y", Priority: ptr.To[int32](5000)}}
	st := lifecyclev1alpha1.EvictionStatus{TargetResponders: rs}
	var got []string
	for _, i := range order(&st) {
		got = append(got, rs[i].Name)
	}
	// io before org; example.io (shorter) before z.example.io.
	if diff := cmp.Diff([]string{"example.io/y", "z.example.io/x", "a.example.org/x"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestAnEvictionRunsItsRespondersInTurn(t *testing.T) {
	pod := podWith(map[string]int32{"apps.ordinal.dev/statefulset-controller": 10000})
	asking := facts{Asking: true, Now: t0.Add(time.Second)}
	t.Run("a responder that has not completed keeps its turn until its heartbeat deadline", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		out := advance(&st, asking)
		if out.Evict || out.Wake != HeartbeatDeadline-time.Second || states(&st)[0] != "apps.ordinal.dev/statefulset-controller=Active" {
			t.Errorf("outcome %+v, states %v", out, states(&st))
		}
	})
	t.Run("a completed responder hands over to the evictor, which evicts", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		st.Responders[0].CompletionTime = ptr.To(metav1.NewTime(t0))
		out := advance(&st, asking)
		want := []string{"apps.ordinal.dev/statefulset-controller=Completed", Evictor + "=Active"}
		if diff := cmp.Diff(want, states(&st)); diff != "" || !out.Evict || st.Responders[1].StartTime == nil {
			t.Errorf("outcome %+v, evictor %+v, states (-want +got):\n%s", out, st.Responders[1], diff)
		}
	})
	t.Run("a responder that completed while the pod terminates keeps its turn until the pod is gone", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		st.Responders[0].CompletionTime = ptr.To(metav1.NewTime(t0))
		going := asking
		going.Terminating = true
		if out := advance(&st, going); out.Evict || states(&st)[0] != "apps.ordinal.dev/statefulset-controller=Active" {
			t.Errorf("outcome %+v, states %v", out, states(&st))
		}
		gone := asking
		gone.Gone, gone.GoneFor = true, completionGrace
		advance(&st, gone)
		want := []string{"apps.ordinal.dev/statefulset-controller=Completed", Evictor + "=Inactive"}
		if diff := cmp.Diff(want, states(&st)); diff != "" || !meta.IsStatusConditionTrue(st.Conditions, "TargetEvicted") {
			t.Errorf("conditions %+v, states (-want +got):\n%s", st.Conditions, diff)
		}
	})
	t.Run("a responder past its heartbeat deadline is interrupted", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		st.Responders[0].HeartbeatTime = ptr.To(metav1.NewTime(t0.Add(time.Minute)))
		late := asking
		late.Now = t0.Add(time.Minute + HeartbeatDeadline)
		out := advance(&st, late)
		want := []string{"apps.ordinal.dev/statefulset-controller=Interrupted", Evictor + "=Active"}
		if diff := cmp.Diff(want, states(&st)); diff != "" || !out.Evict {
			t.Errorf("outcome %+v, states (-want +got):\n%s", out, diff)
		}
	})
	t.Run("no request asking any more cancels the active responder", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		advance(&st, facts{Now: t0})
		c := meta.FindStatusCondition(st.Conditions, "Failed")
		if states(&st)[0] != "apps.ordinal.dev/statefulset-controller=Canceled" || c == nil || c.Reason != "CanceledDueToNoRequesters" {
			t.Errorf("states %v, Failed %+v", states(&st), c)
		}
	})
	t.Run("a pod that finished ends the eviction", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		done := asking
		done.Phase = corev1.PodSucceeded
		advance(&st, done)
		if c := meta.FindStatusCondition(st.Conditions, "TargetEvicted"); c == nil || c.Reason != "PodTerminal" {
			t.Errorf("TargetEvicted %+v, want PodTerminal", c)
		}
	})
	t.Run("the evictor completing with the pod still there fails the eviction", func(t *testing.T) {
		st := initialStatus(&corev1.Pod{}, 1, t0)
		evicted(&st, t0, "evicted")
		advance(&st, asking)
		if c := meta.FindStatusCondition(st.Conditions, "Failed"); c == nil || c.Reason != "NoFurtherResponder" || states(&st)[0] != Evictor+"=Completed" {
			t.Errorf("Failed %+v, states %v", c, states(&st))
		}
	})
	t.Run("an ended eviction does not change", func(t *testing.T) {
		st := initialStatus(pod, 1, t0)
		advance(&st, facts{Gone: true, GoneFor: completionGrace, Now: t0})
		before := st.DeepCopy()
		advance(&st, asking)
		if diff := cmp.Diff(before, &st); diff != "" {
			t.Errorf("status changed (-before +after):\n%s", diff)
		}
	})
}

func TestTheEvictorRecordsRefusalsAndHeartbeatsAtMostEveryTwentySeconds(t *testing.T) {
	st := initialStatus(&corev1.Pod{}, 1, t0)
	refused(&st, errors.New("cannot evict pod as it would violate the pod's disruption budget"), 1, t0)
	first := st.Responders[0].HeartbeatTime
	refused(&st, errors.New("again"), 2, t0.Add(5*time.Second))
	if st.Responders[0].HeartbeatTime != first {
		t.Errorf("heartbeat moved after 5s: %v", st.Responders[0].HeartbeatTime)
	}
	refused(&st, errors.New("again"), 3, t0.Add(21*time.Second))
	if got := st.Responders[0]; !got.HeartbeatTime.Equal(ptr.To(metav1.NewTime(t0.Add(21*time.Second)))) || !strings.Contains(*got.Message, "3 retries") {
		t.Errorf("evictor status %+v, want a heartbeat at 21s and the third retry", got)
	}
	if backoff(1) != 5*time.Second || backoff(3) != 20*time.Second || backoff(30) != 2*time.Minute {
		t.Errorf("backoff 1, 3, 30: %s %s %s", backoff(1), backoff(3), backoff(30))
	}
}

func TestARequestGetsItsEvictionsFinalConditions(t *testing.T) {
	st := initialStatus(podWith(map[string]int32{"x.io/y": 5000}), 1, t0)
	advance(&st, facts{Gone: true, GoneFor: completionGrace, Now: t0})
	got := requestConditions(nil, &st)
	if len(got) != 1 || got[0].Type != "TargetEvicted" || got[0].Reason != "PodDeleted" {
		t.Errorf("request conditions %+v", got)
	}
}

func TestRequesterListKeepsOneEntryPerRequester(t *testing.T) {
	req := func(name, requester string, intent lifecyclev1alpha1.EvictionRequestIntent) *lifecyclev1alpha1.EvictionRequest {
		return &lifecyclev1alpha1.EvictionRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: lifecyclev1alpha1.EvictionRequestSpec{Requester: requester, Intent: intent}}
	}
	got := requesterList([]*lifecyclev1alpha1.EvictionRequest{req("a", "x.io/a", "Withdrawn"), req("b", "x.io/a", "Eviction"), req("c", "y.io/b", "Withdrawn")})
	want := []lifecyclev1alpha1.Requester{{Name: "x.io/a", Intent: "Eviction"}, {Name: "y.io/b", Intent: "Withdrawn"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requesters (-want +got):\n%s", diff)
	}
}

func TestAPodGoneBeforeItsResponderCompletedWaitsForItsWord(t *testing.T) {
	pod := podWith(map[string]int32{"apps.ordinal.dev/statefulset-controller": 10000})
	st := initialStatus(pod, 1, t0)
	gone := facts{Gone: true, GoneFor: time.Second, Asking: true, Now: t0.Add(time.Second)}
	if out := advance(&st, gone); out.Wake != completionGrace-time.Second || final(&st) {
		t.Fatalf("outcome %+v, final %v: want the responder's completion awaited", out, final(&st))
	}
	st.Responders[0].CompletionTime = ptr.To(metav1.NewTime(t0.Add(2 * time.Second)))
	advance(&st, gone)
	if states(&st)[0] != "apps.ordinal.dev/statefulset-controller=Completed" || !meta.IsStatusConditionTrue(st.Conditions, "TargetEvicted") {
		t.Errorf("states %v, conditions %+v: want Completed and TargetEvicted", states(&st), st.Conditions)
	}
	silent := initialStatus(pod, 1, t0)
	late := gone
	late.GoneFor = completionGrace
	advance(&silent, late)
	if states(&silent)[0] != "apps.ordinal.dev/statefulset-controller=Interrupted" || !meta.IsStatusConditionTrue(silent.Conditions, "TargetEvicted") {
		t.Errorf("a silent responder: states %v: want Interrupted once the grace is over", states(&silent))
	}
}

func TestTheEvictorCompletesItselfOnceThePodIsGoneThenTheEvictionEnds(t *testing.T) {
	st := initialStatus(&corev1.Pod{}, 1, t0)
	gone := facts{Gone: true, Asking: true, Now: t0.Add(time.Second)}
	advance(&st, gone)
	if st.Responders[0].CompletionTime == nil || final(&st) || states(&st)[0] != Evictor+"=Active" {
		t.Fatalf("evictor %+v, states %v: want its completion written first, still Active", st.Responders[0], states(&st))
	}
	advance(&st, gone)
	if states(&st)[0] != Evictor+"=Completed" || !meta.IsStatusConditionTrue(st.Conditions, "TargetEvicted") {
		t.Errorf("states %v, conditions %+v", states(&st), st.Conditions)
	}
}
