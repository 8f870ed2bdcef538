package planner_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// keeping is spec.disruptionBudget with maxUnavailable n (0: unset), and
// the budgets observed around the set.
func keeping(n int, budgets ...planner.BudgetFact) func(*planner.Extended) {
	return func(e *planner.Extended) {
		e.DisruptionBudget = &planner.ManagedBudget{Name: "web", MaxUnavailable: n}
		observedOf(e).Budgets = &planner.Budgets{All: budgets}
	}
}

// budgetsSeen are the budgets observed around a set without
// spec.disruptionBudget.
func budgetsSeen(budgets ...planner.BudgetFact) func(*planner.Extended) {
	return func(e *planner.Extended) { observedOf(e).Budgets = &planner.Budgets{All: budgets} }
}

// nodesReady observes each node with the given Ready status.
func nodesReady(states map[string]corev1.ConditionStatus) func(*planner.Extended) {
	return func(e *planner.Extended) {
		facts := &planner.NodeFacts{Nodes: map[string]planner.NodeState{}}
		for n, s := range states {
			facts.Nodes[n] = planner.NodeState{Ready: s}
		}
		observedOf(e).Nodes = facts
	}
}

func budgetLine(b *planner.BudgetPlan) string {
	if b == nil {
		return "none"
	}
	return fmt.Sprintf("minAvailable %d of %d (allowance %d, hidden %d)", b.MinAvailable, b.Counted, b.Allowance, len(b.Hidden))
}

func TestTheSetsOwnBudgetIsSizedFromItsQuorumAndShrunkByWhatItAloneSeesDown(t *testing.T) {
	three := steady(testgen.Replicas(3))
	five := steady(testgen.Replicas(5))
	slow := steady(testgen.Replicas(3), testgen.MinReadySeconds(30))
	for _, tc := range []struct {
		name string
		f    fixture
		e    *planner.Extended
		pods []*corev1.Pod
		want string
	}{{
		name: "without spec.disruptionBudget the set keeps none",
		f:    three, e: database(budgetsSeen()),
		pods: []*corev1.Pod{three.pod(0, leader), three.pod(1, follower), three.pod(2, follower)},
		want: "none",
	}, {
		name: "a quorum of three keeps two: one disruption",
		f:    three, e: database(keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader), three.pod(1, follower), three.pod(2, follower)},
		want: "minAvailable 2 of 3 (allowance 1, hidden 0)",
	}, {
		name: "a quorum of five allows two, and maxUnavailable more than that is capped",
		f:    five, e: database(keeping(5)),
		pods: []*corev1.Pod{five.pod(0, leader), five.pod(1, follower), five.pod(2, follower), five.pod(3, follower), five.pod(4, follower)},
		want: "minAvailable 3 of 5 (allowance 2, hidden 0)",
	}, {
		name: "maxUnavailable below the quorum's allowance is kept",
		f:    five, e: database(keeping(1)),
		pods: []*corev1.Pod{five.pod(0, leader), five.pod(1, follower), five.pod(2, follower), five.pod(3, follower), five.pod(4, follower)},
		want: "minAvailable 4 of 5 (allowance 1, hidden 0)",
	}, {
		name: "a Ready member without its role yet shrinks the budget: the budget counts it healthy, the quorum does not",
		f:    three, e: database(keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader), three.pod(1, follower), three.pod(2)},
		want: "minAvailable 3 of 3 (allowance 1, hidden 1)",
	}, {
		name: "a member that is not Ready is down for the budget too: no shrink",
		f:    three, e: database(keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader), three.pod(1, follower), three.pod(2, follower, testgen.NotReady(testgen.Epoch))},
		want: "minAvailable 2 of 3 (allowance 1, hidden 0)",
	}, {
		name: "a member on its way back, not Ready and without its role, is counted before it turns Ready",
		f:    three, e: database(keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader), three.pod(1, follower), three.pod(2, testgen.NotReady(now))},
		want: "minAvailable 3 of 3 (allowance 1, hidden 1)",
	}, {
		name: "a missing member is down for the budget too",
		f:    three, e: database(keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader), three.pod(1, follower)},
		want: "minAvailable 2 of 3 (allowance 1, hidden 0)",
	}, {
		name: "a pod Ready for less than minReadySeconds shrinks it",
		f:    slow, e: extended(keeping(0)),
		pods: []*corev1.Pod{slow.pod(0), slow.pod(1), slow.pod(2, testgen.Ready(now.Add(-5*time.Second)))},
		want: "minAvailable 3 of 3 (allowance 1, hidden 1)",
	}, {
		name: "a Ready pod on a node that is not Ready shrinks it",
		f:    three, e: database(keeping(0), nodesReady(map[string]corev1.ConditionStatus{"n1": corev1.ConditionTrue, "n2": corev1.ConditionUnknown})),
		pods: []*corev1.Pod{three.pod(0, leader, onNode("n1")), three.pod(1, follower, onNode("n1")), three.pod(2, follower, onNode("n2"))},
		want: "minAvailable 3 of 3 (allowance 1, hidden 1)",
	}, {
		name: "a leader handing its role over shrinks it until the role has moved",
		f:    three, e: database(switchover(false), keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader, switchingAt(v1alpha1.HookPending, now.Add(-time.Second), "rev", "leader")), three.pod(1, follower), three.pod(2, follower)},
		want: "minAvailable 3 of 3 (allowance 1, hidden 1)",
	}, {
		name: "a switchover past its timeout shrinks it no longer: under Proceed the set evicts the leader through it",
		f:    three, e: database(switchover(true), keeping(0)),
		pods: []*corev1.Pod{three.pod(0, leader, switchingAt(v1alpha1.HookPending, now.Add(-5*time.Minute-time.Second), "rev", "leader")), three.pod(1, follower), three.pod(2, follower)},
		want: "minAvailable 2 of 3 (allowance 1, hidden 0)",
	}, {
		name: "a quorum of one whose switchover timed out can still be evicted by the set",
		f:    steady(testgen.Replicas(1)), e: database(switchover(true), keeping(0)),
		pods: []*corev1.Pod{steady(testgen.Replicas(1)).pod(0, leader, switchingAt(v1alpha1.HookPending, now.Add(-5*time.Minute-time.Second), "rev", "leader"))},
		want: "minAvailable 0 of 1 (allowance 1, hidden 0)",
	}, {
		name: "once the role has moved the old holder counts as any member",
		f:    three, e: database(switchover(false), keeping(0)),
		pods: []*corev1.Pod{three.pod(0, follower, switchingAt(v1alpha1.HookDone, now.Add(-time.Second), "rev", "leader")), three.pod(1, leader), three.pod(2, follower)},
		want: "minAvailable 2 of 3 (allowance 1, hidden 0)",
	}, {
		name: "without a quorum role the allowance is maxUnavailable",
		f:    five, e: extended(keeping(2)),
		pods: five.pods(0, 1, 2, 3, 4),
		want: "minAvailable 3 of 5 (allowance 2, hidden 0)",
	}, {
		name: "without a quorum role nor maxUnavailable the allowance is 1",
		f:    three, e: extended(keeping(0)),
		pods: three.pods(0, 1, 2),
		want: "minAvailable 2 of 3 (allowance 1, hidden 0)",
	}, {
		name: "a quorum of one is disrupted one at a time, as the quorum's gate allows",
		f:    steady(testgen.Replicas(1)), e: database(keeping(0)),
		pods: []*corev1.Pod{steady(testgen.Replicas(1)).pod(0, leader)},
		want: "minAvailable 0 of 1 (allowance 1, hidden 0)",
	}, {
		name: "pods above a lowered replicas still count while they run",
		f:    three, e: extended(keeping(0)),
		pods: three.pods(0, 1, 2, 3, 4),
		want: "minAvailable 4 of 5 (allowance 1, hidden 0)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.ext(tc.e, tc.pods...)
			if got := budgetLine(plan.Extended.Budget); got != tc.want {
				t.Errorf("budget: got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestTheOwnBudgetNeverGrantsMoreThanTheQuorumAllows plays the
// disruption controller on generated pod states: the disruptions the
// budget grants (its Ready, not terminating pods less minAvailable) never
// exceed what the quorum's gate would let the set disrupt itself, so
// that outside evictions and the set's own together stay within it.
func TestTheOwnBudgetNeverGrantsMoreThanTheQuorumAllows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 2000 {
		n := int32(1 + rng.IntN(7))
		f := steady(testgen.Replicas(n), testgen.MinReadySeconds(10))
		var pods []*corev1.Pod
		for ord := range n {
			if rng.IntN(8) == 0 {
				continue // missing
			}
			pods = append(pods, f.pod(ord, randomPodState(rng)...))
		}
		e := database(keeping(rng.IntN(4)))
		plan := f.ext(e, pods...)
		b := plan.Extended.Budget
		healthy := 0
		for _, p := range pods {
			if p.DeletionTimestamp == nil && planner.IsRunningAndReady(p) {
				healthy++
			}
		}
		granted := max(0, healthy-int(b.MinAvailable))
		if left := quorumLeft(pods, n, 10); granted > left {
			t.Fatalf("case %d: the budget grants %d disruptions, the quorum allows %d (%s)\n%s", i, granted, left, budgetLine(b), podStates(pods))
		}
	}
}

// randomPodState is a pod's role, readiness, age and deletion at random.
func randomPodState(rng *rand.Rand) []testgen.PodOption {
	var opts []testgen.PodOption
	switch rng.IntN(4) {
	case 0:
		opts = append(opts, leader)
	case 1, 2:
		opts = append(opts, follower)
	case 3:
		if rng.IntN(2) == 0 {
			opts = append(opts, learner)
		}
	}
	switch rng.IntN(5) {
	case 0:
		opts = append(opts, testgen.NotReady(testgen.Epoch))
	case 1:
		opts = append(opts, testgen.Ready(now.Add(-3*time.Second)))
	}
	if rng.IntN(8) == 0 {
		opts = append(opts, testgen.Terminating(now.Add(-time.Second)))
	}
	return opts
}

// quorumLeft re-derives, on its own, how many Available quorum members
// the quorum may still lose: a majority of its size stays, and a quorum
// of one or two loses one only while all are Available.
func quorumLeft(pods []*corev1.Pod, replicas int32, minReady int32) int {
	size, available := int(replicas), 0
	for _, p := range pods {
		switch p.Labels["role"] {
		case "learner":
			size--
		case "leader", "follower":
			if p.DeletionTimestamp == nil && planner.IsAvailable(p, minReady, now) {
				available++
			}
		}
	}
	if size <= 0 {
		return int(replicas) // no member: the quorum limits nothing
	}
	left := available - (size/2 + 1)
	if available == size {
		left = max(left, 1)
	}
	return max(left, 0)
}

func podStates(pods []*corev1.Pod) string {
	var lines []string
	for _, p := range pods {
		lines = append(lines, fmt.Sprintf("%s role=%q ready=%v terminating=%v", p.Name, p.Labels["role"], planner.IsRunningAndReady(p), p.DeletionTimestamp != nil))
	}
	return strings.Join(lines, "\n")
}

func TestBudgetsThatSelectTheSetsPodsAreNamed(t *testing.T) {
	three := steady(testgen.Replicas(3))
	pods := three.pods(0, 1, 2)
	own := planner.BudgetFact{Name: "web", Owned: true, Pods: []string{"web-0", "web-1", "web-2"}, Template: true}
	theirs := planner.BudgetFact{Name: "db-pdb", Pods: []string{"web-0", "web-1", "web-2"}, Template: true}
	other := planner.BudgetFact{Name: "zone-a", Pods: []string{"web-1"}}
	for _, tc := range []struct {
		name, condition, warning string
	}{
		{"its own budget alone is True", "True BudgetManaged", ""},
		{"someone's budget keeps the set from creating its own", "False ForeignBudget", planner.ReasonForeignBudget},
		{"its own beside someone's, on the same pods, makes every eviction fail", "False MultipleBudgets", planner.ReasonMultipleBudgets},
		{"two budgets of a set without spec.disruptionBudget on one pod", "False MultipleBudgets", planner.ReasonMultipleBudgets},
		{"one budget of a set without spec.disruptionBudget is none of the set's business", "", ""},
		{"budgets not read keep the condition as it was", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *planner.Extended
			switch tc.name {
			case "its own budget alone is True":
				e = extended(keeping(0, own))
			case "someone's budget keeps the set from creating its own":
				e = extended(keeping(0, theirs))
			case "its own beside someone's, on the same pods, makes every eviction fail":
				e = extended(keeping(0, own, theirs))
			case "two budgets of a set without spec.disruptionBudget on one pod":
				e = extended(budgetsSeen(theirs, other))
			case "one budget of a set without spec.disruptionBudget is none of the set's business":
				e = extended(budgetsSeen(theirs))
			default:
				e = extended()
			}
			plan := three.ext(e, pods...)
			got := ""
			if c := meta.FindStatusCondition(plan.Extended.Status.Conditions, planner.ConditionDisruptionBudget); c != nil {
				got = string(c.Status) + " " + c.Reason
			}
			if got != tc.condition {
				t.Errorf("condition: got %q, want %q", got, tc.condition)
			}
			warned := strings.Join(warningReasons(plan), ",")
			if tc.warning != "" && !strings.Contains(warned, tc.warning) || tc.warning == "" && strings.Contains(warned, "Budget") {
				t.Errorf("warnings: got %s, want %q", warned, tc.warning)
			}
		})
	}
}

func TestTheForeignBudgetIsNamedWithWhatToDo(t *testing.T) {
	three := steady(testgen.Replicas(3))
	e := extended(keeping(0, planner.BudgetFact{Name: "db-pdb", Template: true}))
	plan := three.ext(e, three.pods(0, 1, 2)...)
	c := meta.FindStatusCondition(plan.Extended.Status.Conditions, planner.ConditionDisruptionBudget)
	for _, want := range []string{"PodDisruptionBudget db-pdb selects", "kubectl -n default delete pdb db-pdb", "remove spec.disruptionBudget"} {
		if c == nil || !strings.Contains(c.Message, want) {
			t.Errorf("condition %v does not say %q", c, want)
		}
	}
	if b := plan.Extended.Budget; b == nil || !cmp.Equal(b.Foreign, []string{"db-pdb"}) || b.Exists {
		t.Errorf("budget plan: %+v, want db-pdb foreign and no own budget", b)
	}
}

func TestARefusalOfAPodTwoBudgetsSelectIsBlockedByBoth(t *testing.T) {
	upd := rollout(testgen.Replicas(3))
	refused := map[string]planner.EvictionRefusal{"web-2": {UID: "uid-web-2", Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
		Since: now.Add(-time.Minute), RetryAt: now.Add(4 * time.Second)}}
	e := respecting(refused, budgetsSeen(
		planner.BudgetFact{Name: "a", Pods: []string{"web-0", "web-1", "web-2"}},
		planner.BudgetFact{Name: "b", Pods: []string{"web-2"}}))
	plan := upd.ext(e, upd.pods(0, 1, 2)...)
	var got []string
	for _, b := range plan.Extended.Status.BlockedBy {
		got = append(got, b.Pod+" "+b.Reason+": "+b.Message)
	}
	want := []string{"web-2 MultipleDisruptionBudgets: PodDisruptionBudgets a, b all select web-2: the API server refuses every eviction of a pod that more than one budget selects"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blockedBy (-want +got):\n%s", diff)
	}
	if !strings.Contains(policies(plan), "PodDisruptionBudgets a, b all select web-2") {
		t.Errorf("waits do not name the budgets:\n%s", policies(plan))
	}
}
