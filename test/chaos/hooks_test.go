package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/conflict"
)

// hookEndpoint is the http hook every chaos run's sets call: while calm is
// false it answers 200 to about six calls in ten, 503 to a quarter and to
// the rest nothing for 12 s (past the controller's 10 s limit on a call);
// once calm, 200 at once.
var hookEndpoint struct {
	once sync.Once
	url  string
	calm atomic.Bool
	rng  *rand.Rand
	mu   sync.Mutex
}

func hookURL() string {
	e := &hookEndpoint
	e.once.Do(func() {
		e.rng = rand.New(rand.NewSource(1))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if e.calm.Load() {
				return
			}
			e.mu.Lock()
			roll := e.rng.Intn(20)
			e.mu.Unlock()
			switch {
			case roll < 12:
			case roll < 17:
				http.Error(w, "not now", http.StatusServiceUnavailable)
			default:
				select {
				case <-r.Context().Done():
				case <-time.After(12 * time.Second):
				}
			}
		}))
		e.url = srv.URL + "/hook"
	})
	return e.url
}

// randomHooks gives half of the extended sets lifecycle hooks: preUpdate,
// preDelete or both, each a handshake (answered by the answer-hook op) or
// an http call of hookEndpoint, timing out after 5 or 20 s, halting or
// proceeding then; with all, every set gets both, and member hooks.
func randomHooks(rng *rand.Rand, set *v1alpha1.StatefulSet, all bool) {
	if rng.Intn(2) == 0 && !all {
		return
	}
	one := func() *v1alpha1.LifecycleHook {
		h := &v1alpha1.LifecycleHook{TimeoutSeconds: []int32{5, 20}[rng.Intn(2)],
			FailurePolicy: []v1alpha1.HookFailurePolicy{v1alpha1.HookHalt, v1alpha1.HookProceed}[rng.Intn(2)]}
		if rng.Intn(5) < 3 {
			h.Handshake = &v1alpha1.HandshakeHook{}
		} else {
			h.HTTP = &v1alpha1.HTTPHook{URL: hookURL()}
		}
		return h
	}
	l := &v1alpha1.Lifecycle{}
	which := rng.Intn(3)
	if all {
		which = 2
	}
	switch which {
	case 0:
		l.PreUpdate = one()
	case 1:
		l.PreDelete = one()
	default:
		l.PreUpdate, l.PreDelete = one(), one()
	}
	memberHooks(rng, l, one, all)
	set.Spec.Lifecycle = l
}

func describeHooks(l *v1alpha1.Lifecycle) string {
	if l == nil {
		return ""
	}
	one := func(name string, h *v1alpha1.LifecycleHook) string {
		if h == nil {
			return ""
		}
		kind := "handshake"
		if h.HTTP != nil {
			kind = "http"
		}
		return fmt.Sprintf(", %s %s %ds %s", name, kind, h.TimeoutSeconds, h.FailurePolicy)
	}
	return one("preUpdate", l.PreUpdate) + one("preDelete", l.PreDelete) + one("postCreate", l.PostCreate) + one("postUpdate", l.PostUpdate)
}

var hookLabels = []string{v1alpha1.PreUpdateHookLabel, v1alpha1.PreDeleteHookLabel, v1alpha1.PostCreateHookLabel, v1alpha1.PostUpdateHookLabel}

// answerHook plays the actor of a handshake: it relabels a pod waiting on
// a hook Done, or one time in four Failed.
func (r *run) answerHook(ctx context.Context) bool {
	pending := r.hookedPods(ctx, func(v string) bool { return v == v1alpha1.HookPending })
	if len(pending) == 0 {
		return false
	}
	p := pending[r.rng.Intn(len(pending))]
	answer := v1alpha1.HookDone
	if r.rng.Intn(4) == 0 {
		answer = v1alpha1.HookFailed
	}
	err := r.labelHook(ctx, p.pod, p.label, answer)
	r.logf("answer-hook %s %s=%s (%s)", p.pod, p.label, answer, errWord(err))
	return true
}

// answerAllHooks ends the hooks' part of the chaos as a user would: the
// http endpoint answers 200 from now on, and every pod whose hook is not
// Done (a handshake waiting, a hook failed or halted) is labelled Done. A
// pending http hook that has not timed out is left to the endpoint.
func (r *run) answerAllHooks(ctx context.Context) {
	hookEndpoint.calm.Store(true)
	live := r.liveHTTPHooks(ctx)
	for _, p := range r.hookedPods(ctx, func(v string) bool { return v != v1alpha1.HookDone }) {
		if live[p.pod+"|"+p.label] {
			continue
		}
		err := r.labelHook(ctx, p.pod, p.label, v1alpha1.HookDone)
		r.logf("answer %s %s=Done at the end (%s)", p.pod, p.label, errWord(err))
	}
}

// liveHTTPHooks lists, as "pod|label", the pods labelled Pending for an
// http hook of their set that has not yet timed out.
func (r *run) liveHTTPHooks(ctx context.Context) map[string]bool {
	out := map[string]bool{}
	sets, err := r.ext.StatefulSets(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return out
	}
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return out
	}
	for _, set := range sets.Items {
		l := set.Spec.Lifecycle
		if l == nil {
			continue
		}
		for label, h := range map[string]*v1alpha1.LifecycleHook{v1alpha1.PreUpdateHookLabel: l.PreUpdate, v1alpha1.PreDeleteHookLabel: l.PreDelete,
			v1alpha1.PostCreateHookLabel: l.PostCreate, v1alpha1.PostUpdateHookLabel: l.PostUpdate} {
			if h == nil || h.HTTP == nil {
				continue
			}
			for _, p := range pods.Items {
				var rec v1alpha1.HookRecord
				_ = json.Unmarshal([]byte(p.Annotations[label]), &rec)
				if metav1.IsControlledBy(&p, &set) && p.Labels[label] == v1alpha1.HookPending &&
					time.Since(rec.Since) < time.Duration(h.TimeoutSeconds)*time.Second {
					out[p.Name+"|"+label] = true
				}
			}
		}
	}
	return out
}

type hookedPod struct{ pod, label string }

// hookedPods lists the run's pods, not terminating, whose hook label's
// value passes want.
func (r *run) hookedPods(ctx context.Context, want func(string) bool) []hookedPod {
	pods, err := r.client.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []hookedPod
	for _, p := range pods.Items {
		for _, label := range hookLabels {
			if v, ok := p.Labels[label]; ok && p.DeletionTimestamp == nil && want(v) {
				out = append(out, hookedPod{p.Name, label})
			}
		}
	}
	return out
}

func (r *run) labelHook(ctx context.Context, name, label, value string) error {
	return conflict.Retry(func() error {
		pod, err := r.client.CoreV1().Pods(r.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, ok := pod.Labels[label]; !ok || pod.DeletionTimestamp != nil {
			return nil // the hook ended meanwhile
		}
		pod.Labels[label] = value
		_, err = r.client.CoreV1().Pods(r.ns).Update(ctx, pod, metav1.UpdateOptions{})
		return err
	})
}
