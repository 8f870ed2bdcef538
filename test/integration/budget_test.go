package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// electedDB makes the set a three-member quorum whose simulated pods
// elect a leader.
func electedDB(s *v1alpha1.StatefulSet) {
	s.Spec.Template.Annotations = map[string]string{nodes.AnnotationRole: nodes.RoleElect}
	withRoles(quorumLeader, quorumFollower)(s)
}

func keepsBudget(s *v1alpha1.StatefulSet) { s.Spec.DisruptionBudget = &v1alpha1.DisruptionBudget{} }

// budgetMinAvailable reads the budget's minAvailable; -1 when it has none.
func budgetMinAvailable(pdb *policyv1.PodDisruptionBudget) int {
	if pdb.Spec.MinAvailable == nil {
		return -1
	}
	return pdb.Spec.MinAvailable.IntValue()
}

// waitOwnBudget waits until the set's own budget "web" keeps minAvailable
// want, owned by the set, and its status has caught up.
func waitOwnBudget(t *testing.T, ns string, want int) *policyv1.PodDisruptionBudget {
	t.Helper()
	uid := getExtended(t, ns).UID
	var got *policyv1.PodDisruptionBudget
	waitFor(t, time.Minute, fmt.Sprintf("the set's budget at minAvailable %d", want), func() (bool, error) {
		pdb, err := client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), setName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ref := metav1.GetControllerOf(pdb)
		if ref == nil || ref.UID != uid || budgetMinAvailable(pdb) != want || pdb.Status.ObservedGeneration != pdb.Generation {
			return false, fmt.Errorf("budget spec %+v owners %+v status %+v", pdb.Spec, pdb.OwnerReferences, pdb.Status)
		}
		got = pdb
		return true, nil
	})
	return got
}

// budgetWatch records every minAvailable the set's budget was written
// with, as a watch of it sees them.
type budgetWatch struct {
	mu   sync.Mutex
	seen []int
}

func watchOwnBudget(t *testing.T, ns string) *budgetWatch {
	t.Helper()
	w := &budgetWatch{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Policy().V1().PodDisruptionBudgets().Informer()
	record := func(obj any) {
		if pdb, ok := obj.(*policyv1.PodDisruptionBudget); ok && pdb.Name == setName {
			w.mu.Lock()
			if n := budgetMinAvailable(pdb); len(w.seen) == 0 || w.seen[len(w.seen)-1] != n {
				w.seen = append(w.seen, n)
			}
			w.mu.Unlock()
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: record, UpdateFunc: func(_, cur any) { record(cur) }}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return w
}

func (w *budgetWatch) values() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int(nil), w.seen...)
}

// conditionIs accepts a set whose condition typ has status and reason.
func conditionIs(typ string, status metav1.ConditionStatus, reason string) func(*v1alpha1.StatefulSet) error {
	return func(s *v1alpha1.StatefulSet) error {
		if c := condition(s, typ); c.Status != status || c.Reason != reason {
			return fmt.Errorf("condition %s %+v, want %s %s", typ, c, status, reason)
		}
		return nil
	}
}

// A set with spec.disruptionBudget keeps a budget of its own: minAvailable
// 2 of a quorum of three, 3 (no eviction) while its rollout has a member
// on its way back, and 2 again once the rollout is done; removing the
// field deletes the budget.
func TestTheSetKeepsABudgetSizedFromItsQuorumAndShrunkWhileAMemberIsDown(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	readySet(t, ns, 3, electedDB, keepsBudget)
	waitOneLeader(t, ns, "elected")
	pdb := waitOwnBudget(t, ns, 2)
	if pdb.Spec.UnhealthyPodEvictionPolicy == nil || *pdb.Spec.UnhealthyPodEvictionPolicy != policyv1.AlwaysAllow ||
		metav1.FormatLabelSelector(pdb.Spec.Selector) != "app=nginx" {
		t.Errorf("budget %+v, want selector app=nginx and AlwaysAllow", pdb.Spec)
	}
	waitBudget(t, ns, 1)
	set := waitExtended(t, ns, 30*time.Second, "condition DisruptionBudget True", conditionIs(v1alpha1.ConditionDisruptionBudget, metav1.ConditionTrue, v1alpha1.ReasonBudgetManaged))
	t.Logf("condition: %s", condition(set, v1alpha1.ConditionDisruptionBudget).Message)
	if msg := condition(set, v1alpha1.ConditionDisruptionBudget).Message; !strings.Contains(msg, "PodDisruptionBudget web keeps minAvailable 2 of 3 pods") {
		t.Errorf("condition message %q does not say the budget's size", msg)
	}
	if plan := runOrdinal(t, ns, "rollout", "plan", "osts/web"); plan.code != 0 || !strings.Contains(plan.out, "own budget:") || !strings.Contains(plan.out, "minAvailable 2 of 3") {
		t.Errorf("rollout plan exit %d does not show the set's budget:\n%s", plan.code, plan.out)
	}

	w := watchOwnBudget(t, ns)
	rollTo(t, ns, imageNew)
	waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	waitOwnBudget(t, ns, 2)
	seen := w.values()
	t.Logf("minAvailable as written during the rollout: %v", seen)
	if !containsInt(seen, 3) {
		t.Errorf("minAvailable during the rollout %v: never 3 while a member was down", seen)
	}

	patchExtended(t, ns, `{"spec":{"disruptionBudget":null}}`)
	waitFor(t, 30*time.Second, "the set's budget deleted", func() (bool, error) {
		_, err := client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), setName, metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})
	waitExtended(t, ns, 30*time.Second, "the condition gone", func(s *v1alpha1.StatefulSet) error {
		if c := condition(s, v1alpha1.ConditionDisruptionBudget); c.Type != "" {
			return fmt.Errorf("condition %+v", c)
		}
		return nil
	})
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// userBudget creates a PodDisruptionBudget of the test's over the set's
// pods.
func userBudget(t *testing.T, ns, name string, minAvailable int32) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(minAvailable)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}},
	}
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating budget %s: %v", name, err)
	}
}

// A budget of someone else's over the set's pods keeps the set from
// creating its own beside it (two budgets on one pod make every eviction
// fail): the condition, a Warning and the plan name it and say what to
// do; once it is deleted the set keeps its own.
func TestAForeignBudgetKeepsTheSetFromCreatingItsOwn(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	userBudget(t, ns, "mine", 2)
	startOrdinal(t, ns)
	readySet(t, ns, 3, keepsBudget)
	set := waitExtended(t, ns, 30*time.Second, "condition DisruptionBudget ForeignBudget", conditionIs(v1alpha1.ConditionDisruptionBudget, metav1.ConditionFalse, v1alpha1.ReasonForeignBudget))
	msg := condition(set, v1alpha1.ConditionDisruptionBudget).Message
	for _, want := range []string{"PodDisruptionBudget mine selects the set's pods", "kubectl -n " + ns + " delete pdb mine", "remove spec.disruptionBudget"} {
		if !strings.Contains(msg, want) {
			t.Errorf("condition message %q does not say %q", msg, want)
		}
	}
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), setName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the set's own budget beside mine: %v", err)
	}
	hasEvent(t, ns, v1alpha1.ReasonForeignBudget, "PodDisruptionBudget mine selects")
	if plan := runOrdinal(t, ns, "rollout", "plan", "osts/web"); !strings.Contains(plan.out, "not kept while PodDisruptionBudget mine selects the set's pods") {
		t.Errorf("rollout plan does not say why the set keeps no budget:\n%s", plan.out)
	}

	if err := client.PolicyV1().PodDisruptionBudgets(ns).Delete(context.Background(), "mine", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitOwnBudget(t, ns, 2)
	waitExtended(t, ns, 30*time.Second, "condition DisruptionBudget True", conditionIs(v1alpha1.ConditionDisruptionBudget, metav1.ConditionTrue, v1alpha1.ReasonBudgetManaged))
}

// Two budgets of the user's over the pods of a set without
// spec.disruptionBudget make every eviction fail: the condition says it,
// and the rollout's refused eviction is blocked by both, by name.
func TestTwoBudgetsOverTheSetsPodsAreNamedWhereTheyBlock(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	readySet(t, ns, 3)
	userBudget(t, ns, "one", 1)
	userBudget(t, ns, "two", 1)
	waitExtended(t, ns, 30*time.Second, "condition DisruptionBudget MultipleBudgets", conditionIs(v1alpha1.ConditionDisruptionBudget, metav1.ConditionFalse, v1alpha1.ReasonMultipleBudgets))
	rollTo(t, ns, imageNew)
	set := waitExtended(t, ns, 30*time.Second, "web-2 blocked by two budgets", func(s *v1alpha1.StatefulSet) error {
		for _, b := range s.Status.BlockedBy {
			if b.Pod == "web-2" && b.Reason == v1alpha1.MultipleBudgetsReason {
				return nil
			}
		}
		return fmt.Errorf("blockedBy %+v", s.Status.BlockedBy)
	})
	for _, b := range set.Status.BlockedBy {
		if b.Pod == "web-2" && !strings.Contains(b.Message, "PodDisruptionBudgets one, two all select web-2") {
			t.Errorf("blockedBy says %q, want both budgets named", b.Message)
		}
	}
}

// A refused eviction is asked again when its budget allows a disruption,
// not when its backoff has passed: after five refusals the next retry is
// 16 s away, and the budget relaxed right after the fifth lets the
// eviction through well before that.
func TestARefusedEvictionRetriesWhenTheBudgetFreesNotAfterItsBackoff(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	evictions := startOrdinalCountingEvictions(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(3), parallel())))
	waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	createBudget(t, ns, 3, 0)
	before := podUIDs(t, ns)
	rollTo(t, ns, imageNew)
	var fifth time.Time
	waitFor(t, 40*time.Second, "five refused evictions", func() (bool, error) {
		if n := evictions.Load(); n < 5 {
			return false, fmt.Errorf("%d evictions", n)
		}
		fifth = time.Now()
		return true, nil
	})
	relaxed := time.Now()
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Patch(context.Background(), "web", types.MergePatchType, []byte(`{"spec":{"minAvailable":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	var evicted time.Time
	waitFor(t, 40*time.Second, "web-2 evicted", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-2", metav1.GetOptions{})
		if apierrors.IsNotFound(err) || err == nil && (p.UID != before["web-2"] || p.DeletionTimestamp != nil) {
			evicted = time.Now()
			return true, nil
		}
		return false, err
	})
	backoffDue := fifth.Add(16 * time.Second)
	t.Logf("fifth refusal seen at +0s, budget relaxed at +%.1fs, web-2 evicted at +%.1fs (%.2fs after the relax); the backoff would have asked at +16s",
		relaxed.Sub(fifth).Seconds(), evicted.Sub(fifth).Seconds(), evicted.Sub(relaxed).Seconds())
	if !evicted.Before(backoffDue) {
		t.Errorf("web-2 evicted %.1fs after the fifth refusal: the retry waited for its backoff, not the budget", evicted.Sub(fifth).Seconds())
	}
}

// budgetCases are spec.disruptionBudget values the API server refuses.
func budgetCases() []invalidCase {
	const (
		badMax  = "spec.disruptionBudget.maxUnavailable must be an integer of at least 1 or a percentage from 1% to 100%"
		evicted = "spec.disruptionBudget counts the set's own removals only when they are evicted: set spec.updateStrategy.rollingUpdate.respectDisruptionBudgets to true (the default) or remove spec.disruptionBudget"
	)
	budget := func(v intstr.IntOrString) func(*v1alpha1.StatefulSet) {
		return func(s *v1alpha1.StatefulSet) {
			s.Spec.DisruptionBudget = &v1alpha1.DisruptionBudget{MaxUnavailable: &v}
		}
	}
	return []invalidCase{
		{"a budget allowing no disruption", budget(intstr.FromInt32(0)), ruleError("spec.disruptionBudget.maxUnavailable", "0: "+badMax)},
		{"a budget of 0%", budget(intstr.FromString("0%")), ruleError("spec.disruptionBudget.maxUnavailable", `"0%": `+badMax)},
		{"a budget beside respectDisruptionBudgets false", func(s *v1alpha1.StatefulSet) {
			keepsBudget(s)
			rollingUpdateOf(s).RespectDisruptionBudgets = ptr(false)
		}, ruleError("spec.disruptionBudget", evicted)},
	}
}
