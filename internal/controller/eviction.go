package controller

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Backoff of a refused eviction: the first retry after evictionRetryMin,
// each further one after twice as long, at most evictionRetryMax. A set
// whose budget stays exhausted therefore costs one eviction call per
// evictionRetryMax, however many events wake it.
const (
	evictionRetryMin = time.Second
	evictionRetryMax = v1alpha1.DisruptionRetryMaxSeconds * time.Second
)

// EventEvictionRefused is the Warning recorded on a set when the API
// server refuses to evict one of its pods.
const EventEvictionRefused = "EvictionRefused"

// evictionRefused is what evictPod returns for a refusal: a wait, not a
// failure of the sync.
type evictionRefused struct{ err error }

func (e *evictionRefused) Error() string { return e.err.Error() }
func (e *evictionRefused) Unwrap() error { return e.err }

// refusal is one pod's refused evictions, for setRefusals.
type refusal struct {
	planner.EvictionRefusal
	attempts int
}

// evictions remembers, per set, the evictions the API server refused, so
// that the planner waits for each until its backoff has passed.
type evictions struct {
	refusals *perSet[setRefusals]
	now      func() time.Time
}

// setRefusals are one set's refused evictions by pod name, and fresh
// says one came since the last sync looked (takeFresh).
type setRefusals struct {
	byPod map[string]refusal
	fresh bool
}

// refused records a refusal of pod's eviction and marks the set's
// refusals fresh (takeFresh).
func (e evictions) refused(setKey string, pod *corev1.Pod, msg string) {
	now := e.now()
	e.refusals.update(setKey, func(st *setRefusals) {
		r, ok := st.byPod[pod.Name]
		if !ok || r.UID != pod.UID {
			r = refusal{EvictionRefusal: planner.EvictionRefusal{UID: pod.UID, Since: now}}
		}
		r.attempts++
		r.Message = msg
		r.RetryAt = now.Add(backoff(r.attempts))
		if st.byPod == nil {
			st.byPod = map[string]refusal{}
		}
		st.byPod[pod.Name] = r
		st.fresh = true
	})
}

// backoff is how long to wait after the n-th refusal in a row.
func backoff(n int) time.Duration {
	d := evictionRetryMin
	for i := 1; i < n && d < evictionRetryMax; i++ {
		d *= 2
	}
	return min(d, evictionRetryMax)
}

// evicted forgets the refusals of a pod that is gone.
func (e evictions) evicted(setKey, pod string) {
	e.refusals.read(setKey, func(st *setRefusals) { delete(st.byPod, pod) })
}

// of returns the set's refusals for the planner.
func (e evictions) of(setKey string) map[string]planner.EvictionRefusal {
	var out map[string]planner.EvictionRefusal
	e.refusals.read(setKey, func(st *setRefusals) {
		if len(st.byPod) == 0 {
			return
		}
		out = make(map[string]planner.EvictionRefusal, len(st.byPod))
		for name, r := range st.byPod {
			out[name] = r.EvictionRefusal
		}
	})
	return out
}

// takeFresh reports whether an eviction of the set was refused since the
// last call, so that the sync looks again soon and status.blockedBy shows
// it.
func (e evictions) takeFresh(setKey string) bool {
	fresh := false
	e.refusals.read(setKey, func(st *setRefusals) { fresh, st.fresh = st.fresh, false })
	return fresh
}

// prune forgets refusals of pods the set no longer has.
func (e evictions) prune(setKey string, pods []*corev1.Pod) {
	e.refusals.read(setKey, func(st *setRefusals) {
		if len(st.byPod) == 0 {
			return
		}
		have := make(map[string]bool, len(pods))
		for _, p := range pods {
			have[p.Name] = true
		}
		maps.DeleteFunc(st.byPod, func(name string, _ refusal) bool { return !have[name] })
	})
}

// evictPod asks the API server to evict exactly the pod the planner saw
// (its UID as a precondition), which succeeds only if every
// PodDisruptionBudget matching the pod allows it, and debits them in the
// same step. NotFound and a UID conflict mean that pod is already gone.
// A refusal by a budget is an *evictionRefused, recorded for the planner;
// any other error (a missing pods/eviction permission) fails the unit.
func (c *apiPodControl) evictPod(ctx context.Context, setKey string, a planner.Action) error {
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: a.Pod.Name, Namespace: a.Pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &a.Pod.UID}},
	}
	err := c.client.PolicyV1().Evictions(a.Pod.Namespace).Evict(ctx, ev)
	switch {
	case err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		c.evictions.evicted(setKey, a.Pod.Name)
		c.exp.deleted(setKey, a.Pod.Name, a.Pod.UID)
		return nil
	case budgetRefusal(err):
		msg := refusalMessage(err)
		klog.FromContext(ctx).V(2).Info("Eviction refused", "statefulset", setKey, "pod", a.Pod.Name, "message", msg)
		c.evictions.refused(setKey, a.Pod, msg)
		return &evictionRefused{err: errors.New(msg)}
	}
	return err
}

// budgetRefusal reports whether err is the API server refusing an
// eviction for a PodDisruptionBudget: 429 TooManyRequests, a pod matched
// by several budgets (500, which the eviction subresource does not
// support), or a budget it cannot use (403 naming the budget, never an
// authorization failure).
func budgetRefusal(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	switch s.Code {
	case http.StatusTooManyRequests:
		return true
	case http.StatusInternalServerError:
		return strings.Contains(s.Message, "PodDisruptionBudget")
	case http.StatusForbidden:
		return s.Details != nil && s.Details.Kind == "poddisruptionbudget"
	}
	return false
}

// refusalMessage is the refusal's message with its causes, which name
// the budget and its numbers.
func refusalMessage(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err.Error()
	}
	s := status.Status()
	msg := s.Message
	if s.Details != nil {
		for _, cause := range s.Details.Causes {
			if cause.Message != "" {
				msg += " " + cause.Message
			}
		}
	}
	return msg
}

// recordRefusal records the Warning about a refused eviction.
func (c *apiPodControl) recordRefusal(set *appsv1.StatefulSet, a planner.Action, err error) {
	c.recorder.Eventf(set, corev1.EventTypeWarning, EventEvictionRefused, "Evict Pod %s in StatefulSet %s refused: %s", a.Pod.Name, set.Name, err)
}
