package nodeloss

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// A rolling update and a drain at once: a three-member "database" keeping
// its own budget (spec.disruptionBudget) rolls out a template whose pods
// take 15 s to turn Ready, and while a member is down for it, its node is
// cordoned and drained with `ordinal node drain --via evictions`. The drain's evictions
// wait on the set's budget (they are refused while the set has a member
// down), the set moves its members off the node in its own turn, and at
// every state a watch of the pods observed at least two of the three
// members were Ready: the rollout and the drain never took two at once.
func TestARolloutAndADrainAtOnceKeepAQuorumUnderTheSetsBudget(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	database(t, ns, func(s *v1alpha1.StatefulSet) {
		s.Spec.Lifecycle.Switchover.TimeoutSeconds = 120
		s.Spec.DisruptionBudget = &v1alpha1.DisruptionBudget{}
	})
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		readyOn(t, ns, name, a, time.Minute)
	}
	oneLeader(t, ns)
	waitFor(t, time.Minute, "the set's budget allowing one disruption", func() (bool, error) {
		pdb, err := client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), "db", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.DisruptionsAllowed == 1, fmt.Errorf("budget %+v status %+v", pdb.Spec, pdb.Status)
	})
	b := addNode(t, ns, "b")
	w := watchMembers(t, ns)

	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:"15s"}},"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`, nodes.AnnotationReadyDelay)
	if _, err := osts.StatefulSets(ns).Patch(context.Background(), "db", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "a member of the new revision on its way up", func() (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Spec.Containers[0].Image == "app:2" && p.DeletionTimestamp == nil && !isReady(&p) {
				return true, nil
			}
		}
		return false, fmt.Errorf("%d pods, none of app:2 on its way up", len(pods.Items))
	})
	external(t, ns, a)
	// Evictions, as kubectl drain makes them: this plane also serves
	// eviction requests, which the set answers itself without a refusal
	// (evictionrequest_test.go).
	out, errOut, code := ordinal("node", "drain", a, "--via", "evictions", "--timeout", "4m")
	t.Logf("drain output:\n%s%s", out, errOut)
	if code != 0 {
		t.Fatalf("ordinal node drain exited %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out+errOut, "Cannot evict pod as it would violate the pod's disruption budget") {
		t.Errorf("the drain was never refused by the set's budget while the rollout had a member down:\n%s%s", out, errOut)
	}
	waitFor(t, 3*time.Minute, "every member at app:2, Ready on "+b, func() (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == b && p.Spec.Containers[0].Image == "app:2" && available(&p) {
				n++
			}
		}
		return n == 3, fmt.Errorf("%d of 3", n)
	})
	gone, fewest, _ := w.stop()
	t.Logf("members went as %v; fewest Ready at once: %d", gone, fewest)
	if fewest < 2 {
		t.Errorf("%d members Ready at the fewest, want 2: the rollout and the drain took two of a quorum of three at once", fewest)
	}
}
