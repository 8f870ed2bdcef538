package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// zoneSet is extended set name of 2 pods labelled app=name, in rollout
// group "zones".
func zoneSet(t *testing.T, ns, name string) *v1alpha1.StatefulSet {
	t.Helper()
	s := asExtended(t, webSet(ns, replicas(2), parallel()))
	s.Name = name
	s.Spec.Selector.MatchLabels = map[string]string{"app": name}
	s.Spec.Template.Labels = map[string]string{"app": name}
	s.Spec.UpdateStrategy.RollingUpdate = &v1alpha1.RollingUpdateStatefulSetStrategy{RolloutGroup: "zones"}
	return s
}

// groupSettled accepts sets that are all settled.
func groupSettled(t *testing.T, ns string, names ...string) func() (bool, error) {
	return func() (bool, error) {
		for _, n := range names {
			s, err := extendedSets(t, ns).Get(context.Background(), n, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if err := extendedSettled(s); err != nil {
				return false, fmt.Errorf("%s: %w", n, err)
			}
		}
		return true, nil
	}
}

// busySets names the sets whose pods are not all there, Ready, not
// terminating and at one revision: the sets updating, seen from outside.
func busySets(t *testing.T, ns string, names ...string) []string {
	t.Helper()
	var out []string
	pods := listPods(t, ns)
	for _, n := range names {
		revs, count, busy := map[string]bool{}, 0, false
		for _, p := range pods {
			if p.Labels["app"] != n {
				continue
			}
			count++
			revs[podRev(&p)] = true
			busy = busy || p.DeletionTimestamp != nil || !podReady(&p)
		}
		if busy || count != 2 || len(revs) > 1 {
			out = append(out, n)
		}
	}
	return out
}

// Three sets of one rollout group (one per zone, as Mimir and Loki run)
// whose templates change together update one at a time: the set that
// took the turn first rolls out while the others wait, which their
// status (condition RolloutGroup False) and `ordinal rollout plan` say,
// and no two are ever seen updating at once — by this test's polling of
// the pods, and by the invariant checker's rollout-group rule on every
// delete.
func TestARolloutGroupUpdatesOneSetAtATime(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	names := []string{"db-a", "db-b", "db-c"}
	for _, n := range names {
		createExtended(t, zoneSet(t, ns, n))
	}
	waitFor(t, time.Minute, "3 settled sets", groupSettled(t, ns, names...))

	patch := []byte(`{"spec":{"template":{"metadata":{"annotations":{"rollout":"2"}}}}}`)
	for _, n := range []string{"db-c", "db-a", "db-b"} {
		if _, err := extendedSets(t, ns).Patch(context.Background(), n, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var waiting string
	waitFor(t, 30*time.Second, "a set waiting for the group's turn", func() (bool, error) {
		for _, n := range names {
			s, err := extendedSets(t, ns).Get(context.Background(), n, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if c := meta.FindStatusCondition(s.Status.Conditions, v1alpha1.ConditionRolloutGroup); c != nil && c.Reason == v1alpha1.RolloutGroupWaiting {
				waiting = n
				return true, nil
			}
		}
		return false, nil
	})
	plan := runOrdinal(t, ns, "rollout", "plan", "osts/"+waiting)
	if plan.code != 0 || !strings.Contains(plan.out, "rollout group:     zones: waiting for the turn: osts/db-") {
		t.Errorf("rollout plan of %s: exit %d, want 0 and the group's turn it waits for", waiting, plan.code)
	}
	busiest := 0
	waitFor(t, 90*time.Second, "every set updated", func() (bool, error) {
		busy := busySets(t, ns, names...)
		busiest = max(busiest, len(busy))
		if len(busy) > 1 {
			return false, fmt.Errorf("sets %v update at once", busy)
		}
		return groupSettled(t, ns, names...)()
	})
	t.Logf("at most %d set(s) seen updating at once; %s waited for its turn", busiest, waiting)
	if busiest > 1 {
		t.Errorf("up to %d sets updated at once, want 1", busiest)
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
