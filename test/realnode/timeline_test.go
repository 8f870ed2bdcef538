package realnode

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// milestone is one step of a pod's update, seen in a watch event.
type milestone struct {
	name string
	// reached says whether pod (the old one's UID is old) has reached the
	// step of an update to image; deleted is true for a Deleted event.
	reached func(pod *corev1.Pod, old string, image string, deleted bool) bool
}

func condition(p *corev1.Pod, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func runsImage(p *corev1.Pod, image string) bool {
	cs := p.Status.ContainerStatuses
	return len(cs) == 1 && cs[0].Image == image && cs[0].State.Running != nil
}

// The steps of each policy's update of one pod, in order: recreating it,
// and changing it in place behind the controller's readiness gate.
var milestones = map[string][]milestone{
	"Recreate": {
		{"deletion asked", func(p *corev1.Pod, old, _ string, _ bool) bool {
			return string(p.UID) != old || p.DeletionTimestamp != nil
		}},
		{"old pod gone", func(p *corev1.Pod, old, _ string, deleted bool) bool { return string(p.UID) != old || deleted }},
		{"new pod created", func(p *corev1.Pod, old, _ string, deleted bool) bool { return string(p.UID) != old && !deleted }},
		{"scheduled", func(p *corev1.Pod, old, _ string, _ bool) bool {
			return string(p.UID) != old && condition(p, corev1.PodScheduled) == corev1.ConditionTrue
		}},
		{"container running", func(p *corev1.Pod, old, image string, _ bool) bool {
			return string(p.UID) != old && runsImage(p, image)
		}},
		{"Ready", func(p *corev1.Pod, old, image string, _ bool) bool {
			return string(p.UID) != old && runsImage(p, image) && condition(p, corev1.PodReady) == corev1.ConditionTrue
		}},
	},
	"InPlaceIfPossible": {
		{"gate set False", func(p *corev1.Pod, _, _ string, _ bool) bool {
			return condition(p, v1alpha1.InPlaceReadinessGate) == corev1.ConditionFalse
		}},
		{"reported not Ready", func(p *corev1.Pod, _, _ string, _ bool) bool {
			return condition(p, corev1.PodReady) == corev1.ConditionFalse
		}},
		{"image patched", func(p *corev1.Pod, _, image string, _ bool) bool { return p.Spec.Containers[0].Image == image }},
		{"new container running", func(p *corev1.Pod, _, image string, _ bool) bool { return runsImage(p, image) }},
		{"containers Ready", func(p *corev1.Pod, _, image string, _ bool) bool {
			return runsImage(p, image) && condition(p, corev1.ContainersReady) == corev1.ConditionTrue
		}},
		{"gate set True", func(p *corev1.Pod, _, image string, _ bool) bool {
			return runsImage(p, image) && condition(p, v1alpha1.InPlaceReadinessGate) == corev1.ConditionTrue
		}},
		{"Ready", func(p *corev1.Pod, _, image string, _ bool) bool {
			return runsImage(p, image) && condition(p, corev1.PodReady) == corev1.ConditionTrue
		}},
	},
}

// timeline records, per pod, when each milestone of policy's update to
// image was first seen in a watch of ns's pods that begins before the
// update.
type timeline struct {
	policy, image string
	steps         []milestone
	mu            sync.Mutex
	old           map[string]string      // pod name → UID before the update
	seen          map[string][]time.Time // pod name → when each step was first seen
	stop          func()
	done          chan struct{}
}

// watchTimeline starts recording; old holds the pods' UIDs before the
// update.
func watchTimeline(ctx context.Context, tb testing.TB, ns, policy, image string, old map[string]string) *timeline {
	tb.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "app=bench"})
	if err != nil {
		tb.Fatal(err)
	}
	tl := &timeline{policy: policy, image: image, steps: milestones[policy], old: old, seen: map[string][]time.Time{},
		stop: w.Stop, done: make(chan struct{})}
	go func() {
		defer close(tl.done)
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok {
				tl.observe(p, ev.Type == watch.Deleted, time.Now())
			}
		}
	}()
	return tl
}

func (tl *timeline) observe(p *corev1.Pod, deleted bool, now time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	got := tl.seen[p.Name]
	for len(got) < len(tl.steps) && tl.steps[len(got)].reached(p, tl.old[p.Name], tl.image, deleted) {
		got = append(got, now)
	}
	tl.seen[p.Name] = got
}

// report stops the watch and returns, for each step, the mean time from
// the step before (the first from the pod's first step), over the pods
// that reached every step, and how many did.
func (tl *timeline) report() string {
	tl.stop()
	<-tl.done
	tl.mu.Lock()
	defer tl.mu.Unlock()
	sums := make([]time.Duration, len(tl.steps))
	var first, last time.Time
	n := 0
	for _, got := range tl.seen {
		if len(got) != len(tl.steps) {
			continue
		}
		n++
		for i := 1; i < len(got); i++ {
			sums[i] += got[i].Sub(got[i-1])
		}
		if first.IsZero() || got[0].Before(first) {
			first = got[0]
		}
		if got[len(got)-1].After(last) {
			last = got[len(got)-1]
		}
	}
	if n == 0 {
		return tl.policy + ": no pod was seen through every step"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d pods, first step to last pod Ready %.2fs; mean per pod:", tl.policy, n, last.Sub(first).Seconds())
	var total time.Duration
	for i := 1; i < len(tl.steps); i++ {
		mean := sums[i] / time.Duration(n)
		total += mean
		fmt.Fprintf(&b, " %s→%s %.2fs;", tl.steps[i-1].name, tl.steps[i].name, mean.Seconds())
	}
	fmt.Fprintf(&b, " in all %.2fs", total.Seconds())
	return b.String()
}
