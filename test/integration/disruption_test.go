package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/controller"
	"github.com/ordinal-sh/ordinal/internal/kubeclient"
)

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// startOrdinalCountingEvictions runs Ordinal's controller for ns, as
// startOrdinal does, through a client that counts the eviction requests
// it sends.
func startOrdinalCountingEvictions(t *testing.T, ns string) *atomic.Int64 {
	t.Helper()
	var evictions atomic.Int64
	cfg := restConfig(20, 30)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/eviction") {
				evictions.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	ext, err := kubeclient.ExtendedClient(restConfig(20, 30))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- controller.Run(ctx, kubernetes.NewForConfigOrDie(cfg), controller.Options{Workers: 5, Namespace: ns, Extended: ext, StorageClasses: true})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ordinal controller for %s: %v", ns, err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("ordinal controller for %s did not stop within 15s", ns)
		}
	})
	return &evictions
}

// createBudget creates the PodDisruptionBudget "web" over the set's pods
// with minAvailable n and waits until the disruption controller has
// counted them, allowing want disruptions.
func createBudget(t *testing.T, ns string, n int32, want int32) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(n)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}},
	}
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating budget: %v", err)
	}
	waitBudget(t, ns, want)
}

// waitBudget waits until the budget "web" is observed and allows want
// disruptions.
func waitBudget(t *testing.T, ns string, want int32) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("the budget to allow %d disruptions", want), func() (bool, error) {
		pdb, err := client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := pdb.Status
		if st.ObservedGeneration != pdb.Generation || st.DisruptionsAllowed != want {
			return false, fmt.Errorf("budget status %+v", st)
		}
		return true, nil
	})
}

// blockedByBudget accepts a set that lists pod in status.blockedBy as
// waiting on a disruption budget.
func blockedByBudget(pod string) func(*v1alpha1.StatefulSet) error {
	return func(s *v1alpha1.StatefulSet) error {
		for _, b := range s.Status.BlockedBy {
			if b.Pod == pod && b.Reason == v1alpha1.DisruptionBudgetReason {
				return nil
			}
		}
		return fmt.Errorf("%s is not blocked by a disruption budget: %+v", pod, s.Status.BlockedBy)
	}
}

// A rolling update of an extended set asks the Eviction API, so a
// PodDisruptionBudget that allows no disruption holds it: no pod goes,
// status.blockedBy and `ordinal rollout plan` say why, and while the
// budget refuses the controller asks again only on a backoff (counted at
// the client: at most three evictions in the four seconds after the
// first refusal, where a retry on every sync would send dozens). Once the
// budget allows one disruption at a time, the rollout completes.
func TestARollingUpdateWaitsForItsDisruptionBudget(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	evictions := startOrdinalCountingEvictions(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3), parallel())))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	createBudget(t, ns, 3, 0)
	before := podUIDs(t, ns)

	patchExtended(t, ns, `{"spec":{"template":{"metadata":{"annotations":{"rollout":"2"}}}}}`)
	set := waitExtended(t, ns, 30*time.Second, "web-2 blocked by the budget", blockedByBudget("web-2"))
	first := evictions.Load()
	for _, b := range set.Status.BlockedBy {
		if b.Pod == "web-2" && !strings.Contains(b.Message, "The disruption budget web needs 3 healthy pods and has 3 currently") {
			t.Errorf("blockedBy web-2 says %q, want the budget's own words", b.Message)
		}
	}
	plan := runOrdinal(t, ns, "rollout", "plan", "osts/web")
	if plan.code != 0 || !strings.Contains(plan.out, "respectDisruptionBudgets: the eviction of web-2 was refused") ||
		!strings.Contains(plan.out, "kubectl -n "+ns+" get pdb") {
		t.Errorf("rollout plan: exit %d, want 0 and the refused eviction of web-2 with how to look at the budget", plan.code)
	}
	time.Sleep(4 * time.Second) // the interval whose requests are counted, not a wait for a condition
	n := evictions.Load() - first
	t.Logf("%d evictions until the refusal showed, %d in the 4s after", first, n)
	if n > 3 || first < 1 {
		t.Errorf("%d evictions before the refusal showed, %d more in the 4s after it; want at least 1, then at most 3 (backoff 1s, 2s, 4s …)", first, n)
	}
	keptUIDs(t, ns, before, "web-0", "web-1", "web-2")

	var relax = []byte(`{"spec":{"minAvailable":2}}`)
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Patch(context.Background(), "web", types.MergePatchType, relax, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	set = waitExtended(t, ns, time.Minute, "the rollout to complete", extendedSettled)
	t.Logf("%d evictions in all", evictions.Load())
	if len(set.Status.BlockedBy) != 0 {
		t.Errorf("blockedBy %+v after the rollout, want none", set.Status.BlockedBy)
	}
	for _, p := range listPods(t, ns) {
		if p.UID == before[p.Name] {
			t.Errorf("%s was not replaced", p.Name)
		}
	}
}
