package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
	"github.com/ordinal-sh/ordinal/internal/podcall"
)

// withHooks gives the set spec.lifecycle.
func withHooks(preUpdate, preDelete *v1alpha1.LifecycleHook) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) {
		s.Spec.Lifecycle = &v1alpha1.Lifecycle{PreUpdate: preUpdate, PreDelete: preDelete}
	}
}

func handshakeHook(timeout int32, policy v1alpha1.HookFailurePolicy) *v1alpha1.LifecycleHook {
	return &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{}, TimeoutSeconds: timeout, FailurePolicy: policy}
}

func httpLifecycleHook(url string, timeout int32, policy v1alpha1.HookFailurePolicy) *v1alpha1.LifecycleHook {
	return &v1alpha1.LifecycleHook{HTTP: &v1alpha1.HTTPHook{URL: url}, TimeoutSeconds: timeout, FailurePolicy: policy}
}

// hookNamespace is a new namespace with Ordinal running in it, allowed to
// call the tests' hook receivers on loopback; its events are logged if the
// test fails.
func hookNamespace(t *testing.T) string {
	t.Helper()
	return hookNamespaceWith(t, hookOptions())
}

// hookOptions let hooks call loopback, where the tests' receivers listen
// and which a controller refuses by default, and name the plane's API
// server, whose port stays refused.
func hookOptions() podcall.HookOptions {
	return podcall.HookOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")},
		APIServer: planetest.Plane().RESTConfig().Host}
}

// hookNamespaceWith is a new namespace with Ordinal running in it with
// the hook options opts.
func hookNamespaceWith(t *testing.T, opts podcall.HookOptions) string {
	t.Helper()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinalWith(t, ns, controller.Options{Hooks: opts})
	return ns
}

// readySet creates the web set with n replicas as the extended kind,
// changed by opts, and waits until it is ready.
func readySet(t *testing.T, ns string, n int32, opts ...func(*v1alpha1.StatefulSet)) {
	t.Helper()
	createExtended(t, asExtended(t, webSet(ns, replicas(n)), opts...))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
}

// labelHook sets a pod's hook label, as a handshake's actor does.
func labelHook(t *testing.T, ns, pod, label, value string) {
	t.Helper()
	updatePod(t, ns, pod, false, func(p *corev1.Pod) { p.Labels[label] = value })
}

// pendingPods lists the pods labelled Pending for label.
func pendingPods(t *testing.T, ns, label string) []string {
	t.Helper()
	var out []string
	for _, p := range listPods(t, ns) {
		if p.Labels[label] == v1alpha1.HookPending && p.DeletionTimestamp == nil {
			out = append(out, p.Name)
		}
	}
	return out
}

// blocked checks status.blockedBy holds exactly pod for reason.
func blocked(pod, reason string, permanent bool) func(*v1alpha1.StatefulSet) error {
	return func(s *v1alpha1.StatefulSet) error {
		b := s.Status.BlockedBy
		if len(b) != 1 || b[0].Pod != pod || b[0].Reason != reason || b[0].Permanent != permanent {
			return fmt.Errorf("blockedBy %+v, want %s %s (permanent %v)", b, pod, reason, permanent)
		}
		return nil
	}
}

// A preUpdate handshake holds each pod of an OrderedReady rollout until
// its label says Done: the pod is labelled Pending, status.blockedBy and
// an event say so, nothing is deleted meanwhile, and Done lets it go.
func TestAPreUpdateHandshakeHoldsEachPod(t *testing.T) {
	t.Parallel()
	ns := hookNamespace(t)
	readySet(t, ns, 3, withHooks(handshakeHook(300, v1alpha1.HookHalt), nil))
	old := rollTo(t, ns, imageNew)
	var order []string
	for range 3 {
		var pod string
		waitFor(t, time.Minute, "a pod labelled Pending", func() (bool, error) {
			p := pendingPods(t, ns, v1alpha1.PreUpdateHookLabel)
			if len(p) == 1 {
				pod = p[0]
			}
			return len(p) == 1, fmt.Errorf("pending %v", p)
		})
		waitExtended(t, ns, 30*time.Second, pod+" in blockedBy", blocked(pod, "PreUpdateHookPending", false))
		before := identities(t, ns)[pod]
		consistently(t, 2*time.Second, pod+" kept while its hook is Pending", func() error {
			if id := identities(t, ns)[pod]; id.uid != before.uid {
				return fmt.Errorf("%s replaced", pod)
			}
			if p := pendingPods(t, ns, v1alpha1.PreUpdateHookLabel); len(p) != 1 {
				return fmt.Errorf("pending %v, want only %s: one pod at a time", p, pod)
			}
			return nil
		})
		order = append(order, pod)
		labelHook(t, ns, pod, v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone)
		waitFor(t, time.Minute, pod+" replaced", func() (bool, error) {
			for _, p := range listPods(t, ns) {
				if p.Name == pod && p.UID != before.uid {
					return true, nil
				}
			}
			return false, fmt.Errorf("%s still the pod at %s", pod, old)
		})
	}
	set := waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	if want := []string{"web-2", "web-1", "web-0"}; !slices.Equal(order, want) {
		t.Errorf("hooks ran for %v, want %v", order, want)
	}
	for _, p := range listPods(t, ns) {
		if _, ok := p.Labels[v1alpha1.PreUpdateHookLabel]; ok {
			t.Errorf("%s at %s keeps the hook label", p.Name, set.Status.UpdateRevision)
		}
	}
	waitForEvent(t, ns, "HookStarted")
}

// answerSecret is in every answer of a hookServer, as credentials would
// be in a metadata service's: it must show nowhere.
const answerSecret = "AKIAIOSFODNN7-answer-s3cret"

// hookServer answers an http hook: each pod's first call fails with 503,
// later calls run answer (nil: 200).
type hookServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []v1alpha1.HookRequest
	answer   func(v1alpha1.HookRequest) int
}

func newHookServer(t *testing.T, answer func(v1alpha1.HookRequest) int) *hookServer {
	s := &hookServer{answer: answer}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req v1alpha1.HookRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		first := req.Attempt == 1
		s.mu.Unlock()
		code := http.StatusOK
		switch {
		case first:
			code = http.StatusServiceUnavailable
		case s.answer != nil:
			code = s.answer(req)
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, "answered %d with %s", code, answerSecret)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *hookServer) calls() []v1alpha1.HookRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// docs/extended-kind.md's roll-out: an in-place image update, followers first and
// the primary last, with a preUpdate http hook that moves the primary
// role off a pod before it is changed. The hook is retried after its 503,
// gets the pod and both revisions, and no pod is recreated.
func TestAPrimaryLastInPlaceRolloutWithASwitchoverHook(t *testing.T) {
	t.Parallel()
	ns := hookNamespace(t)
	var updateRev string
	var mu sync.Mutex
	var updatedAtSwitchover []string
	srv := newHookServer(t, func(req v1alpha1.HookRequest) int {
		pod, err := client.CoreV1().Pods(ns).Get(context.Background(), req.Pod, metav1.GetOptions{})
		if err != nil || pod.Labels["role"] != "primary" {
			return http.StatusOK // a follower: nothing to hand over
		}
		// Switch over to a follower that runs the new revision already.
		for _, p := range listPods(t, ns) {
			if p.Name != req.Pod && p.Labels["controller-revision-hash"] == req.UpdateRevision {
				mu.Lock()
				for _, q := range listPods(t, ns) {
					if q.Labels["controller-revision-hash"] == req.UpdateRevision {
						updatedAtSwitchover = append(updatedAtSwitchover, q.Name)
					}
				}
				slices.Sort(updatedAtSwitchover)
				updateRev = req.UpdateRevision
				mu.Unlock()
				setRole(t, ns, req.Pod, "")
				setRole(t, ns, p.Name, "primary")
				return http.StatusOK
			}
		}
		return http.StatusConflict // no follower is ready to take over yet
	})
	readySet(t, ns, 3, podUpdate(v1alpha1.PodUpdateInPlaceIfPossible), primaryLast, withHooks(httpLifecycleHook(srv.URL+"/switchover", 60, v1alpha1.HookHalt), nil))
	setRole(t, ns, "web-1", "primary")
	before := identities(t, ns)
	old := getExtended(t, ns).Status.UpdateRevision
	jsonPatchExtended(t, ns, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"`+imageNew+`"}]`)
	set := waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)

	if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("pods %v after the rollout, want the same as before %v: an image change goes in place", got, before)
	}
	var order []string
	for _, c := range srv.calls() {
		if c.Attempt == 1 {
			order = append(order, c.Pod)
		}
		if c.StatefulSet != "web" || c.Namespace != ns || c.Hook != "preUpdate" || c.Revision != old || c.UpdateRevision != set.Status.UpdateRevision || c.PodUID != string(before[c.Pod].uid) {
			t.Errorf("request %+v, want set web in %s, preUpdate from %s to %s, the pod's UID", c, ns, old, set.Status.UpdateRevision)
		}
	}
	if want := []string{"web-2", "web-0", "web-1"}; !slices.Equal(order, want) {
		t.Errorf("hooks called for %v, want %v: followers first, highest ordinal first, the primary last", order, want)
	}
	if n := len(srv.calls()); n < 6 {
		t.Errorf("%d calls, want at least 2 per pod (each first call gets 503 and is retried)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if updateRev != set.Status.UpdateRevision || !slices.Equal(updatedAtSwitchover, []string{"web-0", "web-2"}) {
		t.Errorf("at the switchover the pods at the new revision were %v, want the followers web-0 and web-2", updatedAtSwitchover)
	}
	for _, p := range listPods(t, ns) {
		if (p.Labels["role"] == "primary") != (p.Name == "web-0") {
			t.Errorf("%s has role %q; the hook moved the primary to web-0", p.Name, p.Labels["role"])
		}
	}
}

// A hook that fails or times out: Halt leaves the pod alone, says so in a
// permanent blockedBy and a Warning, and fails the rollout, until the pod
// is labelled Done; Proceed goes on.
func TestHookFailurePolicies(t *testing.T) {
	t.Parallel()
	t.Run("a handshake that times out under Halt", func(t *testing.T) {
		t.Parallel()
		ns := hookNamespace(t)
		readySet(t, ns, 2, withHooks(handshakeHook(3, v1alpha1.HookHalt), nil))
		before := identities(t, ns)
		rollTo(t, ns, imageNew)
		waitExtended(t, ns, time.Minute, "web-1 halted", func(s *v1alpha1.StatefulSet) error {
			if err := blocked("web-1", "PreUpdateHookTimedOut", true)(s); err != nil {
				return err
			}
			if c := condition(s, v1alpha1.ConditionProgressing); c.Status != metav1.ConditionFalse {
				return fmt.Errorf("Progressing %+v, want False", c)
			}
			return nil
		})
		waitForEvent(t, ns, "HookFailed")
		consistently(t, 3*time.Second, "the halted pod kept", func() error {
			if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
				return fmt.Errorf("pods %v, want %v", got, before)
			}
			return nil
		})
		labelHook(t, ns, "web-1", v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone)
		waitFor(t, time.Minute, "web-0's hook", func() (bool, error) {
			p := pendingPods(t, ns, v1alpha1.PreUpdateHookLabel)
			return slices.Equal(p, []string{"web-0"}), fmt.Errorf("pending %v", p)
		})
		labelHook(t, ns, "web-0", v1alpha1.PreUpdateHookLabel, v1alpha1.HookDone)
		waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	})
	t.Run("an http hook that keeps failing times out under Proceed", func(t *testing.T) {
		t.Parallel()
		ns := hookNamespace(t)
		srv := newHookServer(t, func(v1alpha1.HookRequest) int { return http.StatusInternalServerError })
		readySet(t, ns, 2, withHooks(httpLifecycleHook(srv.URL, 3, v1alpha1.HookProceed), nil))
		rollTo(t, ns, imageNew)
		waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
		waitForEvent(t, ns, "HookFailed")
		if n := len(srv.calls()); n < 4 {
			t.Errorf("%d calls, want several per pod until each timed out", n)
		}
	})
	t.Run("an http hook that keeps failing times out under Halt", func(t *testing.T) {
		t.Parallel()
		ns := hookNamespace(t)
		srv := newHookServer(t, func(v1alpha1.HookRequest) int { return http.StatusInternalServerError })
		url := strings.Replace(srv.URL, "http://", "http://ops:"+urlSecret+"@", 1) + "/switchover?token=" + urlSecret
		readySet(t, ns, 2, withHooks(httpLifecycleHook(url, 3, v1alpha1.HookHalt), nil))
		before := identities(t, ns)
		rollTo(t, ns, imageNew)
		set := waitExtended(t, ns, time.Minute, "web-1 halted", blocked("web-1", "PreUpdateHookTimedOut", true))
		// Each pod's first call gets 503; a slow machine may fit no second
		// call into the 3 s timeout, and then 503 is the last error.
		last := "last: HTTP 500)"
		if len(srv.calls()) == 1 {
			last = "last: HTTP 503)"
		}
		if msg := set.Status.BlockedBy[0].Message; !strings.Contains(msg, last) {
			t.Errorf("blockedBy message %q, want the last error, the status code alone (%s)", msg, last)
		}
		if msg := eventMessage(t, ns, "HookStarted"); !strings.Contains(msg, "calls "+srv.URL+"/switchover;") {
			t.Errorf("HookStarted event %q, want the URL without its credentials and query", msg)
		}
		if got := identities(t, ns); fmt.Sprint(got) != fmt.Sprint(before) {
			t.Errorf("pods %v, want %v", got, before)
		}
		waitForEvent(t, ns, "HookFailed")
		noSecrets(t, ns, answerSecret, urlSecret)
	})
	t.Run("a preDelete handshake that fails holds scale-in under Halt, and Proceed lets it go", func(t *testing.T) {
		t.Parallel()
		ns := hookNamespace(t)
		readySet(t, ns, 3, withHooks(nil, handshakeHook(300, v1alpha1.HookHalt)))
		before := identities(t, ns)
		patchExtended(t, ns, `{"spec":{"replicas":2}}`)
		waitFor(t, time.Minute, "web-2 labelled Pending", func() (bool, error) {
			p := pendingPods(t, ns, v1alpha1.PreDeleteHookLabel)
			return slices.Equal(p, []string{"web-2"}), fmt.Errorf("pending %v", p)
		})
		labelHook(t, ns, "web-2", v1alpha1.PreDeleteHookLabel, v1alpha1.HookFailed)
		waitExtended(t, ns, time.Minute, "web-2 halted", blocked("web-2", "PreDeleteHookFailed", true))
		consistently(t, 2*time.Second, "web-2 kept", func() error {
			if id, ok := identities(t, ns)["web-2"]; !ok || id.uid != before["web-2"].uid {
				return fmt.Errorf("web-2 gone or replaced")
			}
			return nil
		})
		patchExtended(t, ns, `{"spec":{"lifecycle":{"preDelete":{"failurePolicy":"Proceed"}}}}`)
		waitFor(t, time.Minute, "web-2 gone", func() (bool, error) {
			_, ok := identities(t, ns)["web-2"]
			return !ok, fmt.Errorf("web-2 still there")
		})
		waitExtended(t, ns, time.Minute, "the set settled at 2", extendedSettled)
	})
}
