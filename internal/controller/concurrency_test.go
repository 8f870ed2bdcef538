package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// Every mechanism's use of its per-set memory at once, on overlapping sets,
// as workers, event handlers and a metrics scrape do; run with -race.
func TestThePerSetStateIsSafeUnderConcurrentUse(t *testing.T) {
	ms := &memories{}
	exp := newExpectations(ms, time.Now)
	status := newAPIStatus(nil, ms)
	deferrals := statusDeferrals{held: newPerSet[deferral](ms)}
	warnings, gauges := newPerSet[warned](ms), newPerSet[rolloutGauges](ms)
	collector := newRolloutCollector(gauges)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				set := testgen.StatefulSet(fmt.Sprintf("s%d", i%5))
				key := set.Namespace + "/" + set.Name
				pod := testgen.Pod(set, int32(w))
				exp.created(key, pod)
				exp.observedDeletion(key, pod.Name, pod.UID)
				exp.pending(key, func(string) (*corev1.Pod, bool) { return nil, false })
				freshWarnings(warnings, key, []planner.Warning{{Reason: "R", Message: fmt.Sprint(i)}}, time.Now())
				status.remember(set)
				status.Stored(set)
				deferrals.hold(key, set.Status, set.Status, time.Now(), time.Second)
				deferrals.pending(key, 1)
				recordRollout(gauges, key, set, planner.Plan{})
				if i%7 == w {
					ms.forget(key)
				}
				collector.Collect(make(chan prometheus.Metric, 100))
			}
		}(w)
	}
	wg.Wait()
}

// The whole controller with several workers on many Parallel sets: each
// set's first sync creates its pods in a burst, and every set gets all of
// them with one create each; run with -race to cover the work queue, the bursts
// and the per-set state together.
func TestManyParallelSetsGetTheirPodsFromConcurrentWorkers(t *testing.T) {
	const sets, replicas = 12, 6
	var objs []runtime.Object
	for i := 0; i < sets; i++ {
		set := testgen.StatefulSet(fmt.Sprintf("s%02d", i), testgen.Replicas(replicas), testgen.Parallel())
		set.UID = types.UID(fmt.Sprintf("uid-s%02d", i))
		objs = append(objs, set)
	}
	client := likeAnAPIServer(fake.NewClientset(objs...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, client, Options{Workers: 4}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pods, err := client.CoreV1().Pods(testgen.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) == sets*replicas {
			break
		}
		if creates := countWrites(client, "create pods"); creates > sets*replicas {
			t.Fatalf("%d pod creates for %d pods", creates, sets*replicas)
		}
		if len(pods.Items) > sets*replicas || time.Now().After(deadline) {
			t.Fatalf("%d pods, want %d", len(pods.Items), sets*replicas)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if creates := countWrites(client, "create pods"); creates != sets*replicas {
		t.Errorf("%d pod creates for %d pods", creates, sets*replicas)
	}
}

func countWrites(client *fake.Clientset, write string) int {
	n := 0
	for _, w := range writes(client) {
		if w == write {
			n++
		}
	}
	return n
}
