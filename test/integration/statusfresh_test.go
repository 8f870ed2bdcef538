package integration

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/internal/controller"
)

// A Parallel roll-out of six pods with maxUnavailable 2 replaces two pods
// at once, and the new pods take 8 s to turn Ready: for seconds only four
// of six are Ready. Observers (`kubectl get sts`, `helm --wait`,
// dashboards) must be told so while it lasts: a status written while the
// two pods are unready must count at most four. Watching both the pods
// and the set, the test orders their events by resource version (the
// plane's etcd revision, one sequence for every object), so it judges
// what was written while the pods were unready, not what a poll happened
// to see. "client saturated" makes the controller believe its requests
// always queue for tokens, with a five-minute hold for count-only changes:
// a count going down must still be written at once.
func TestStatusShowsTheReadyDipOfAParallelRollout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts controller.Options
	}{
		{"client at rest", controller.Options{StatusHold: controller.DefaultStatusHold}},
		{"client saturated", controller.Options{StatusHold: 5 * time.Minute, Busy: func() bool { return true }}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := newNamespace(t)
			startOrdinalWith(t, ns, tc.opts)
			createSet(t, webSet(ns, replicas(6), parallel(), maxUnavailable(2)))
			waitSet(t, ns, 2*time.Minute, "6 ready replicas", settled)

			rec := recordTimeline(t, ns)
			updateSet(t, ns, func(s *appsv1.StatefulSet) {
				setImage(imageNew)(s)
				podAnnotation(readyDelayKey, "8s")(s)
			})
			waitSet(t, ns, 3*time.Minute, "the roll-out to finish", settled)
			checkDipWritten(t, rec(), 4)
		})
	}
}

// timelineEvent is one watch event of a pod or of the set, at the
// resource version the object was written at.
type timelineEvent struct {
	rv     uint64
	pod    *corev1.Pod // nil for the set's events
	gone   bool
	status appsv1.StatefulSetStatus
}

// recordTimeline watches ns's pods and its set from their current
// resource versions on; the returned function stops the watches and
// returns their events in resource-version order.
func recordTimeline(t *testing.T, ns string) func() []timelineEvent {
	t.Helper()
	ctx := context.Background()
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sets, err := client.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var events []timelineEvent
	for i := range pods.Items {
		events = append(events, timelineEvent{rv: parseRV(t, pods.Items[i].ResourceVersion), pod: &pods.Items[i]})
	}
	pw, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: pods.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	sw, err := client.AppsV1().StatefulSets(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: sets.ResourceVersion})
	if err != nil {
		pw.Stop()
		t.Fatal(err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, w := range []watch.Interface{pw, sw} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range w.ResultChan() {
				if e, ok := toTimeline(ev); ok {
					mu.Lock()
					events = append(events, e)
					mu.Unlock()
				}
			}
		}()
	}
	stop := sync.OnceFunc(func() { pw.Stop(); sw.Stop(); wg.Wait() })
	t.Cleanup(stop)
	return func() []timelineEvent {
		stop()
		sort.SliceStable(events, func(i, j int) bool { return events[i].rv < events[j].rv })
		return events
	}
}

func toTimeline(ev watch.Event) (timelineEvent, bool) {
	switch o := ev.Object.(type) {
	case *corev1.Pod:
		rv, err := strconv.ParseUint(o.ResourceVersion, 10, 64)
		return timelineEvent{rv: rv, pod: o, gone: ev.Type == watch.Deleted}, err == nil
	case *appsv1.StatefulSet:
		rv, err := strconv.ParseUint(o.ResourceVersion, 10, 64)
		return timelineEvent{rv: rv, status: o.Status}, err == nil
	}
	return timelineEvent{}, false
}

func parseRV(t *testing.T, rv string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Fatalf("resource version %q is not an etcd revision: %v", rv, err)
	}
	return n
}

// checkDipWritten replays the timeline: it finds the spans in which at
// most low pods were Running and Ready (counted as upstream counts them,
// terminating or not) and requires one such span, and a status written
// within it that counts at most low Ready pods.
func checkDipWritten(t *testing.T, events []timelineEvent, low int) {
	t.Helper()
	ready := map[string]bool{}
	count := func() int {
		n := 0
		for _, r := range ready {
			if r {
				n++
			}
		}
		return n
	}
	var log []string
	inDip, dips, written := false, 0, false
	for _, e := range events {
		if e.pod != nil {
			ready[e.pod.Name] = !e.gone && isReady(e.pod)
			n := count()
			if n <= low && !inDip {
				dips++
			}
			inDip = n <= low
			log = append(log, fmt.Sprintf("%d pod %s ready=%t (%d ready)", e.rv, e.pod.Name, ready[e.pod.Name], n))
			continue
		}
		log = append(log, fmt.Sprintf("%d status ready=%d", e.rv, e.status.ReadyReplicas))
		if inDip && e.status.ReadyReplicas <= int32(low) {
			written = true
		}
	}
	switch {
	case dips == 0:
		t.Fatalf("never %d or fewer pods Ready: the roll-out did not replace two pods at once\n%s", low, strings.Join(log, "\n"))
	case !written:
		t.Errorf("%d spans with %d or fewer pods Ready, and no status written within one counted %d or fewer\n%s",
			dips, low, low, strings.Join(log, "\n"))
	}
}
