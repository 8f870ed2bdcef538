package integration

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// imageThird is a third image, for a second rollout.
const imageThird = "registry.k8s.io/nginx-slim:0.10"

// primaryLast gives pods labelled role=primary weight -100, so they update
// after every other pod.
func primaryLast(s *v1alpha1.StatefulSet) {
	rollingUpdateOf(s).Priority = []v1alpha1.UpdatePriorityRule{
		{Weight: -100, Selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "primary"}}},
	}
}

// setRole sets or, with an empty value, removes a pod's role label.
func setRole(t *testing.T, ns, pod, role string) {
	t.Helper()
	updatePod(t, ns, pod, false, func(p *corev1.Pod) {
		if role == "" {
			delete(p.Labels, "role")
			return
		}
		p.Labels["role"] = role
	})
}

// deletionOrder is the order in which pods at revision rev began to go
// (terminating, or deleted when no terminating update was seen), from the
// recorder's events after mark.
func deletionOrder(rec *recorder, mark int, rev string) []string {
	var out []string
	for _, e := range rec.Since(mark, evTerminating, evDeleted) {
		if e.Rev == rev && !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// rollTo changes the image, which starts a rollout, and returns the
// revision the pods ran before.
func rollTo(t *testing.T, ns, image string) string {
	t.Helper()
	old := getExtended(t, ns).Status.UpdateRevision
	patchExtended(t, ns, `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"`+image+`"}]}}}}`)
	return old
}

// labelledPrimaryStays checks that labelling the primary replaces no pod,
// for longer than the invariant checker's window: the checker judges the
// priority order only of pods whose objects and labels it saw unchanged
// for a whole window (a controller may act on a view that old), so the
// rollout that follows is judged by it too.
func labelledPrimaryStays(t *testing.T, rec *recorder) {
	t.Helper()
	mark := rec.Mark()
	consistently(t, invariant.DefaultWindow+time.Second, "no pod goes after the primary is labelled", func() error {
		if gone := rec.Since(mark, evTerminating, evDeleted); len(gone) > 0 {
			return fmt.Errorf("pods went without a template change: %v", gone)
		}
		return nil
	})
}

// priorityCase is one pod management policy's rollouts: want is the order
// of the first rollout with web-1 the primary; in the second the first
// pods to go (held) stay terminating until the primary moves to web-2,
// and relabelled is the order that follows.
type priorityCase struct {
	opts             []setOption
	replicas         int32
	held             []string
	want, relabelled []string
}

func runPriorityCase(t *testing.T, c priorityCase) {
	ns := newNamespace(t)
	startOrdinal(t, ns)
	rec := recordPods(t, ns)
	createExtended(t, asExtended(t, webSet(ns, append([]setOption{replicas(c.replicas)}, c.opts...)...), primaryLast))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)

	setRole(t, ns, "web-1", "primary")
	labelledPrimaryStays(t, rec)
	mark := rec.Mark()
	old := rollTo(t, ns, imageNew)
	waitExtended(t, ns, 2*time.Minute, "the first rollout complete", extendedSettled)
	if got := deletionOrder(rec, mark, old); !slices.Equal(got, c.want) {
		t.Errorf("first rollout: pods went in order %v, want %v", got, c.want)
	}

	// The replaced primary came back without the label; label it again
	// and hold the first pods of the next rollout while terminating.
	setRole(t, ns, "web-1", "primary")
	for _, name := range c.held {
		updatePod(t, ns, name, false, func(p *corev1.Pod) { p.Finalizers = append(p.Finalizers, holdFinalizer) })
		t.Cleanup(func() { releaseHold(ns, name) })
	}
	mark = rec.Mark()
	old = rollTo(t, ns, imageThird)
	waitFor(t, time.Minute, fmt.Sprintf("%v terminating", c.held), func() (bool, error) {
		got := deletionOrder(rec, mark, old)
		return len(got) >= len(c.held), fmt.Errorf("terminating so far: %v", got)
	})
	setRole(t, ns, "web-1", "")
	setRole(t, ns, "web-2", "primary")
	for _, name := range c.held {
		releaseHold(ns, name)
	}
	waitExtended(t, ns, 2*time.Minute, "the second rollout complete", extendedSettled)
	if got := deletionOrder(rec, mark, old); !slices.Equal(got, c.relabelled) {
		t.Errorf("second rollout, primary moved from web-1 to web-2: pods went in order %v, want %v", got, c.relabelled)
	}
}

// Under OrderedReady the followers go one at a time, highest ordinal
// first, and the primary last; relabelling the primary mid-rollout moves
// it to the end at once.
func TestPriorityUpdatesThePrimaryLastOneAtATime(t *testing.T) {
	t.Parallel()
	runPriorityCase(t, priorityCase{
		replicas:   4,
		held:       []string{"web-3"},
		want:       []string{"web-3", "web-2", "web-0", "web-1"},
		relabelled: []string{"web-3", "web-1", "web-0", "web-2"},
	})
}

// Under Parallel with maxUnavailable 2, each freed place in the budget
// goes to the heaviest pod left, so the pods go in the same order, two at
// a time, and the primary last.
func TestPriorityUpdatesThePrimaryLastWithinMaxUnavailable(t *testing.T) {
	t.Parallel()
	runPriorityCase(t, priorityCase{
		opts:       []setOption{parallel(), maxUnavailable(2)},
		replicas:   5,
		held:       []string{"web-4", "web-3"},
		want:       []string{"web-4", "web-3", "web-2", "web-0", "web-1"},
		relabelled: []string{"web-4", "web-3", "web-1", "web-0", "web-2"},
	})
}
