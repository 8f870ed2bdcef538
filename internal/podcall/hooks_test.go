package podcall

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// loopback allows the tests' receivers, which listen on 127.0.0.1.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// hookTest is a pod and a caller, allowed to call loopback, whose calls go
// to handler.
func hookTest(t *testing.T, handler http.HandlerFunc) (*hookCaller, *fake.Clientset, planner.Action) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return hookCallTo(t, srv.URL+"/switchover", HookOptions{AllowCIDRs: loopback})
}

// hookCallTo is a pod and a caller of opts whose calls go to url.
func hookCallTo(t *testing.T, url string, opts HookOptions, objects ...runtime.Object) (*hookCaller, *fake.Clientset, planner.Action) {
	t.Helper()
	return hookCallOf(t, &planner.HookEndpoint{URL: url}, opts, objects...)
}

// hookCallOf is a pod and a caller of opts whose calls go to e.
func hookCallOf(t *testing.T, e *planner.HookEndpoint, opts HookOptions, objects ...runtime.Object) (*hookCaller, *fake.Clientset, planner.Action) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "ns", UID: "uid-2",
		Labels: map[string]string{v1alpha1.PreUpdateHookLabel: v1alpha1.HookPending}}}
	client := fake.NewClientset(append([]runtime.Object{pod}, objects...)...)
	since := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	a := planner.Action{Kind: planner.CallHook, Ordinal: 2, Pod: pod, Call: &planner.HookCall{
		Hook:    planner.Hook{Name: "preUpdate", Label: v1alpha1.PreUpdateHookLabel, HTTP: e, Timeout: time.Minute},
		Request: v1alpha1.HookRequest{Hook: "preUpdate", Namespace: "ns", StatefulSet: "web", Pod: "web-2", PodUID: "uid-2", Ordinal: 2, Revision: "web-1", UpdateRevision: "web-2", Attempt: 1},
		Record:  v1alpha1.HookRecord{Since: since, Revision: "web-2"}, Timeout: 2 * time.Second}}
	return newHookCaller(context.Background(), client, opts, nil), client, a
}

// settled waits until the caller has nothing in flight.
func settled(t *testing.T, h *hookCaller) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !h.memory.inFlight("ns/web") {
			return
		}
	}
	t.Fatal("the call never ended")
}

func hookState(t *testing.T, client *fake.Clientset) (string, v1alpha1.HookRecord) {
	t.Helper()
	pod, err := client.CoreV1().Pods("ns").Get(context.Background(), "web-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rec v1alpha1.HookRecord
	if err := json.Unmarshal([]byte(pod.Annotations[v1alpha1.PreUpdateHookLabel]), &rec); err != nil {
		t.Fatalf("annotation %q: %v", pod.Annotations[v1alpha1.PreUpdateHookLabel], err)
	}
	return pod.Labels[v1alpha1.PreUpdateHookLabel], rec
}

func TestAnHTTPHookThatAnswers2xxIsDone(t *testing.T) {
	var got v1alpha1.HookRequest
	var calls atomic.Int32
	h, client, a := hookTest(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s with Content-Type %q, want a POST of JSON", r.Method, r.Header.Get("Content-Type"))
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		w.WriteHeader(http.StatusNoContent)
	})
	h.start(context.Background(), "ns/web", a)
	h.start(context.Background(), "ns/web", a) // under way: not repeated
	settled(t, h)
	h.start(context.Background(), "ns/web", a) // made: not repeated from a stale plan
	settled(t, h)
	if calls.Load() != 1 {
		t.Errorf("%d calls, want 1", calls.Load())
	}
	if !reflect.DeepEqual(got, a.Call.Request) {
		t.Errorf("request %+v, want %+v", got, a.Call.Request)
	}
	state, rec := hookState(t, client)
	if state != v1alpha1.HookDone || rec.Attempts != 1 || rec.LastError != "" || !rec.Since.Equal(a.Call.Record.Since) || rec.Revision != "web-2" {
		t.Errorf("pod labelled %q with record %+v, want Done after 1 attempt, the start kept", state, rec)
	}
}

func TestAnHTTPHookThatFailsIsRecorded(t *testing.T) {
	for name, handler := range map[string]http.HandlerFunc{
		"HTTP 503": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "switchover refused", http.StatusServiceUnavailable)
		},
		"no answer within 2s": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			h, client, a := hookTest(t, handler)
			h.start(context.Background(), "ns/web", a)
			settled(t, h)
			state, rec := hookState(t, client)
			if state != v1alpha1.HookPending || rec.Attempts != 1 || rec.LastError != name || rec.LastAttempt.IsZero() {
				t.Errorf("pod labelled %q with record %+v, want still Pending, 1 attempt, error %q", state, rec, name)
			}
			next := a
			call := *a.Call
			call.Request.Attempt = 2
			next.Call = &call
			h.start(context.Background(), "ns/web", next)
			settled(t, h)
			if _, rec := hookState(t, client); rec.Attempts != 2 {
				t.Errorf("after the second call: %d attempts recorded, want 2", rec.Attempts)
			}
		})
	}
}
