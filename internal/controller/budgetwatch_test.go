package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// refusingController is a controller whose pod cache holds web-2 of
// namespace ns and whose eviction memory has refused it n times at now.
func refusingController(t *testing.T, now time.Time, n int) (*Controller, *corev1.Pod) {
	t.Helper()
	c := &Controller{now: func() time.Time { return now },
		podIdx: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		queue:  workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	t.Cleanup(c.queue.ShutDown)
	c.remember()
	c.evictions.now = c.now
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "ns", UID: "uid-2", Labels: map[string]string{"app": "web"}}}
	if err := c.podIdx.Add(newPodRecord(pod)); err != nil {
		t.Fatal(err)
	}
	for range n {
		c.evictions.refused("osts:ns/web", pod, "Cannot evict pod as it would violate the pod's disruption budget.")
	}
	return c, pod
}

func budgetAllowing(allowed int32, observed, generation int64, selector map[string]string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Generation: generation},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: selector}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, ObservedGeneration: observed},
	}
}

// A refused eviction is asked again when a budget that selects its pod
// allows a disruption, not when its backoff (here 16 s, after five
// refusals) has passed: the plan finds it due at once, and its set is
// queued.
func TestARefusedEvictionIsDueOnceABudgetOfItsPodAllowsADisruption(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		old, cur *policyv1.PodDisruptionBudget
		due      bool
	}{
		{"the budget allows one more", budgetAllowing(0, 1, 1, map[string]string{"app": "web"}), budgetAllowing(1, 1, 1, map[string]string{"app": "web"}), true},
		{"the budget's status caught up with its spec", budgetAllowing(1, 1, 2, map[string]string{"app": "web"}), budgetAllowing(1, 2, 2, map[string]string{"app": "web"}), true},
		{"the budget still allows none", budgetAllowing(0, 1, 1, map[string]string{"app": "web"}), budgetAllowing(0, 1, 1, map[string]string{"app": "web"}), false},
		{"the budget's status is behind its spec", budgetAllowing(0, 1, 1, map[string]string{"app": "web"}), budgetAllowing(1, 1, 2, map[string]string{"app": "web"}), false},
		{"a budget that does not select the pod", budgetAllowing(0, 1, 1, map[string]string{"app": "db"}), budgetAllowing(1, 1, 1, map[string]string{"app": "db"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := refusingController(t, now, 5)
			before := c.evictions.of("osts:ns/web")["web-2"].RetryAt
			if want := now.Add(16 * time.Second); !before.Equal(want) {
				t.Fatalf("after five refusals the retry is at %v, want %v", before, want)
			}
			if budgetFreed(tc.old, tc.cur) {
				c.retryRefusedUnder(tc.cur)
			}
			after := c.evictions.of("osts:ns/web")["web-2"].RetryAt
			if due := !after.After(now); due != tc.due {
				t.Errorf("retry at %v (now %v): due %v, want %v", after, now, due, tc.due)
			}
			if queued := c.queue.Len() == 1; queued != tc.due {
				t.Errorf("queued %v, want %v", queued, tc.due)
			}
		})
	}
}

// A budget that refuses again after the early retry sends the backoff on
// from where it was: the early retry costs one request, never a storm.
func TestABudgetThatRefusesAgainKeepsTheBackoffGoing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, pod := refusingController(t, now, 3)
	c.retryRefusedUnder(budgetAllowing(1, 1, 1, map[string]string{"app": "web"}))
	c.evictions.refused("osts:ns/web", pod, "refused again")
	if got, want := c.evictions.of("osts:ns/web")["web-2"].RetryAt, now.Add(8*time.Second); !got.Equal(want) {
		t.Errorf("retry after the fourth refusal at %v, want %v", got, want)
	}
}
