package controller

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// slowCreates makes every pod create through client take d, as one
// queued for rate-limiter tokens does.
func slowCreates(client interface {
	PrependReactor(verb, resource string, fn k8stesting.ReactionFunc)
}, d time.Duration) {
	client.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		time.Sleep(d)
		return false, nil, nil
	})
}

// A Parallel scale-up under a QPS limit is one long sync; its status,
// written when the sync ends, would count none of the pods that turned
// Ready meanwhile. Once the sync has spent its budget, the burst stops at
// the next batch boundary, having made whole batches only, and says so.
func TestABurstStopsAtABatchBoundaryOnceItsBudgetIsSpent(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(20), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	plan := planner.Compute(planner.Input{Set: set, Current: rev, Update: rev, Now: testgen.Epoch})
	for _, tc := range []struct {
		name   string
		budget time.Duration
		cut    bool
	}{
		{"a budget spent after the second batch", 50 * time.Millisecond, true},
		{"no budget", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc, client, _, _ := newTestPodControl()
			slowCreates(client, 20*time.Millisecond)
			pc.budget = tc.budget
			err := pc.Apply(context.Background(), set, "default/web", plan.Steps)
			pods, listErr := client.CoreV1().Pods(set.Namespace).List(context.Background(), metav1.ListOptions{})
			if listErr != nil {
				t.Fatal(listErr)
			}
			n := len(pods.Items)
			switch {
			case !tc.cut && (err != nil || n != 20):
				t.Errorf("Apply: %v and %d pods; want every one of 20 made", err, n)
			case tc.cut && !cutShort(err):
				t.Errorf("Apply: %v; want it cut short", err)
			case tc.cut && n != 1 && n != 3 && n != 7 && n != 15:
				t.Errorf("%d pods made; want whole slow-start batches (1, 2, 4, 8, 5) only, not all", n)
			}
		})
	}
}

// Under a QPS limit a batch's units start as the client's burst lets
// them (inFlight), so a single large batch, which a sync after a cut
// starts with (the pods made before fill the small batches), would
// otherwise run for as long as it has units; it too stops starting units
// once the budget is spent, after at least one.
func TestALargeBatchStopsStartingUnitsOnceTheBudgetIsSpent(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(20), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	plan := planner.Compute(planner.Input{Set: set, Current: rev, Update: rev, Now: testgen.Epoch})
	plan.Steps[0].Batches = []int{len(plan.Steps[0].Actions)}
	pc, client, _, _ := newTestPodControl()
	pc.inFlight, pc.budget = 1, time.Nanosecond
	err := pc.Apply(context.Background(), set, "default/web", plan.Steps)
	pods, listErr := client.CoreV1().Pods(set.Namespace).List(context.Background(), metav1.ListOptions{})
	if listErr != nil {
		t.Fatal(listErr)
	}
	if !cutShort(err) || len(pods.Items) != 1 {
		t.Errorf("Apply: %v, %d pods made; want it cut short after the first", err, len(pods.Items))
	}
}

// A sync cut short is no failure: it returns no error, writes its status
// and comes back after cacheLagRequeue, not on the failure backoff.
func TestASyncCutShortRequeuesAtOnce(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(20), testgen.Parallel())
	c, client := newTestControllerWith(t, Options{Workers: 1}, func(c *Controller) {
		c.podControl.(*apiPodControl).budget = 30 * time.Millisecond
	}, set)
	slowCreates(client, 20*time.Millisecond)
	requeue, err := c.sync(context.Background(), set.Namespace+"/"+set.Name)
	if err != nil || requeue != cacheLagRequeue {
		t.Errorf("sync: requeue %s, error %v; want %s and none", requeue, err, cacheLagRequeue)
	}
}

// A plan built to CreateLimit missing pods holds every pod a sync cut
// short after its budget gets to, so the controller need not build the
// rest: the full plan of a 600-pod scale-up, applied through a client
// with a token bucket, one write per pod (the fewest a pod takes) and
// inFlight at the burst, never creates a pod the limited plan lacks.
func TestASyncCutShortNeverGetsPastItsCreateLimit(t *testing.T) {
	set := testgen.StatefulSet("web", testgen.Replicas(600), testgen.Parallel())
	rev := testgen.RevisionOf(set, 1)
	set.Status.CurrentRevision, set.Status.UpdateRevision = rev.Name, rev.Name
	in := planner.Input{Set: set, Current: rev, Update: rev, Now: testgen.Epoch}
	full := planner.Compute(in)
	for _, tc := range []struct {
		qps    float32
		burst  int
		budget time.Duration
	}{{200, 5, 100 * time.Millisecond}, {400, 2, 60 * time.Millisecond}, {50, 20, 150 * time.Millisecond}} {
		in.CreateLimit = createLimit(tc.qps, tc.burst, tc.budget)
		limited := map[string]bool{}
		for _, s := range planner.Compute(in).Steps {
			for _, a := range s.Actions {
				if a.Kind == planner.CreatePod {
					limited[a.Pod.Name] = true
				}
			}
		}
		pc, client, _, _ := newTestPodControl()
		bucket := flowcontrol.NewTokenBucketRateLimiter(tc.qps, tc.burst)
		client.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
			bucket.Accept()
			return false, nil, nil
		})
		pc.inFlight, pc.budget = tc.burst, tc.budget
		err := pc.Apply(context.Background(), set, "default/web", full.Steps)
		pods, listErr := client.CoreV1().Pods(set.Namespace).List(context.Background(), metav1.ListOptions{})
		if listErr != nil {
			t.Fatal(listErr)
		}
		if !cutShort(err) {
			t.Errorf("qps %g burst %d budget %s: Apply %v; want it cut short", tc.qps, tc.burst, tc.budget, err)
		}
		for _, p := range pods.Items {
			if !limited[p.Name] {
				t.Errorf("qps %g burst %d budget %s: the sync created %s (%d pods in all), past the %d pods of a plan limited to %d",
					tc.qps, tc.burst, tc.budget, p.Name, len(pods.Items), len(limited), in.CreateLimit)
				break
			}
		}
	}
}
