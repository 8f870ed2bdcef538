package nodeloss

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
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/invariant"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// The tests of this file meet the node-failure policy with the shapes
// real clusters' nodes take: a name unlike the hostname label (every test
// node, addNode), a fence on a Ready node, a node deleted and registered
// again under its name, a node without a Ready condition, and a namespace
// that has not opted in to claim deletion.

var recreate = &v1alpha1.NodeFailurePolicy{Volumes: v1alpha1.RecreateNodeFailureVolumes}

// localSet creates, in a namespace that opted in to claim deletion, a
// local class and an extended set web of one pod under policy, and
// returns its node a, where web-0 runs Ready, web-0 and its claim.
func localSet(t *testing.T, ns string, policy *v1alpha1.NodeFailurePolicy) (string, *corev1.Pod, *corev1.PersistentVolumeClaim) {
	t.Helper()
	class := "local-" + ns
	localClass(t, class)
	a := addNode(t, ns, "a")
	createExtended(t, set(ns, "web", 1, class), policy)
	pod := readyOn(t, ns, "web-0", a, time.Minute)
	claim := claimOf(t, ns, "data-web-0")
	if h := volumeHost(t, claim); h != hostOf(a) {
		t.Fatalf("the local volume of web-0 is pinned to %s, want the hostname label %s of node %s", h, hostOf(a), a)
	}
	return a, pod, claim
}

// externalDelete tells namespace ns's invariant watcher that the test
// deletes the pod of uid.
func externalDelete(ns string, uid types.UID) {
	if w, ok := watchers.Load(ns); ok {
		w.(*invariant.Watcher).ExternalDelete(uid)
	}
}

// sameClaim fails the test unless data-web-0 is still claim, not being
// deleted.
func sameClaim(t *testing.T, ns string, claim *corev1.PersistentVolumeClaim) {
	t.Helper()
	if c := claimOf(t, ns, claim.Name); c.UID != claim.UID || c.DeletionTimestamp != nil {
		t.Errorf("claim %s was given up", claim.Name)
	}
}

// blocked waits until the set's status lists pod with reason, and a
// message saying want, and returns that message.
func blocked(t *testing.T, ns, set, pod, reason, want string, timeout time.Duration) string {
	t.Helper()
	var msg string
	waitFor(t, timeout, fmt.Sprintf("%s in %s's blockedBy for %s saying %q", pod, set, reason, want), func() (bool, error) {
		s, err := osts.StatefulSets(ns).Get(context.Background(), set, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, b := range s.Status.BlockedBy {
			if b.Pod == pod && b.Reason == reason && strings.Contains(b.Message, want) {
				msg = b.Message
				return true, nil
			}
		}
		return false, fmt.Errorf("blockedBy %+v", s.Status.BlockedBy)
	})
	return msg
}

// A volume is pinned by its node's hostname label, which need not be the
// node's name: while web-0 is gone (deleted, as by an eviction), its claim
// on the live node stays, and the recreated pod comes back to it.
func TestALiveNodeNamedUnlikeItsHostnameKeepsItsClaims(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	optIn(t, ns)
	a, old, claim := localSet(t, ns, recreate)
	externalDelete(ns, old.UID)
	if err := client.CoreV1().Pods(ns).Delete(context.Background(), "web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := readyOn(t, ns, "web-0", a, time.Minute); p.UID == old.UID {
		t.Fatal("web-0 is the old pod")
	}
	sameClaim(t, ns, claim)
	if ok, _ := hasEvent(ns, "web", planner.ReasonClaimRecreated); ok {
		t.Error("a claim was recreated although its node lives")
	}
}

// The out-of-service taint on a Ready node (an autoscaler's, a mistyped
// fence) evicts its pods, but gives no data up: the recreated web-0 waits,
// Pending, for its node until the taint goes, then runs there on its
// claim.
func TestAFenceOnAReadyNodeGivesUpNoClaim(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	optIn(t, ns)
	a, old, claim := localSet(t, ns, recreate)
	addNode(t, ns, "b")
	if err := nodes.Fence(context.Background(), client, a); err == nil {
		t.Fatal("ordinal node fence fenced a Ready node without --force")
	}
	fence(t, ns, a, true)
	waitFor(t, time.Minute, "web-0 recreated and unschedulable on its pinned claim", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		unschedulable := false
		for _, c := range p.Status.Conditions {
			unschedulable = unschedulable || (c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse)
		}
		return p.UID != old.UID && p.Spec.NodeName == "" && unschedulable, fmt.Errorf("uid changed %v, node %q, conditions %v", p.UID != old.UID, p.Spec.NodeName, p.Status.Conditions)
	})
	sameClaim(t, ns, claim)
	if err := nodes.Unfence(context.Background(), client, a); err != nil {
		t.Fatal(err)
	}
	readyOn(t, ns, "web-0", a, time.Minute)
	sameClaim(t, ns, claim)
}

// cordon marks node unschedulable, as kubectl drain does first.
func cordon(t *testing.T, node string) {
	t.Helper()
	n, err := client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Spec.Unschedulable = true
	if _, err := client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// drain cordons node a and deletes web-0, which the set recreates Pending
// on its claim pinned to a; it returns the new pod's UID.
func drain(t *testing.T, ns, a string, old *corev1.Pod) types.UID {
	t.Helper()
	cordon(t, a)
	externalDelete(ns, old.UID)
	if err := client.CoreV1().Pods(ns).Delete(context.Background(), "web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var uid types.UID
	waitFor(t, time.Minute, "web-0 recreated, Pending on the cordoned node's claim", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		uid = p.UID
		return p.UID != old.UID && p.Spec.NodeName == "", fmt.Errorf("uid changed %v, node %q", p.UID != old.UID, p.Spec.NodeName)
	})
	return uid
}

// kubectl drain, kubectl delete node, and the kubelet registers the node
// again under its name a moment later: the same machine, by its hostname
// label, whose claims are kept through the quarantine.
func TestANodeDeletedAndRegisteredAgainKeepsItsClaims(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	optIn(t, ns)
	a, old, claim := localSet(t, ns, recreate)
	drain(t, ns, a, old)
	if err := nodes.Replace(context.Background(), client, a, nodes.ReplaceOptions{After: quarantine / 3}); err != nil {
		t.Fatal(err)
	}
	readyOn(t, ns, "web-0", a, time.Minute)
	sameClaim(t, ns, claim)
}

// A node registered again under the old name with another hostname label
// is another machine: the old host is gone, and once it has been for the
// quarantine web-0's claim is given up, and web-0 starts on the new
// machine with a new one.
func TestANodeRegisteredAgainAsAnotherHostIsAnotherMachine(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	optIn(t, ns)
	a, old, claim := localSet(t, ns, recreate)
	drain(t, ns, a, old)
	other := hostOf(a) + "-new"
	if err := nodes.Replace(context.Background(), client, a, nodes.ReplaceOptions{Hostname: other}); err != nil {
		t.Fatal(err)
	}
	replaced := time.Now()
	msg := blocked(t, ns, "web", "web-0", planner.ReasonClaimQuarantine, "would delete claim data-web-0 at", 30*time.Second)
	if !strings.Contains(msg, "host "+hostOf(a)+", which no node has carried since") {
		t.Errorf("blockedBy %q does not say the host is gone", msg)
	}
	if plan := rolloutPlan(t, ns, "web"); !strings.Contains(plan, "would delete claim data-web-0 because its volume") {
		t.Errorf("ordinal rollout plan does not say it would delete the claim:\n%s", plan)
	}
	readyOn(t, ns, "web-0", a, quarantine+time.Minute)
	if took := time.Since(replaced); took < quarantine {
		t.Errorf("the claim was given up %s after its host went, before the quarantine (%s)", took.Round(time.Second), quarantine)
	}
	c := claimOf(t, ns, "data-web-0")
	if c.UID == claim.UID || volumeHost(t, c) != other {
		t.Errorf("web-0 runs on claim %s pinned to %s, want a new claim pinned to %s", c.UID, volumeHost(t, c), other)
	}
}

// A node without a Ready condition has no time since which it is NotReady:
// replaceAfterSeconds starts no clock and force-deletes nothing until the
// node lifecycle controller judges the node.
func TestANodeWithoutAReadyConditionHasNoPodForceDeleted(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	createExtended(t, set(ns, "web", 1, "-"), &v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](2)})
	old := readyOn(t, ns, "web-0", a, time.Minute)
	if err := nodes.DropReadyCondition(context.Background(), client, a); err != nil {
		t.Fatal(err)
	}
	blocked(t, ns, "web", "web-0", planner.ReasonNodeLost, "which has no Ready condition", 30*time.Second)
	if p, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{}); err != nil || p.UID != old.UID {
		t.Fatalf("web-0 was replaced while its node had no Ready condition (%v)", err)
	}
	if err := nodes.Restore(context.Background(), client, a); err != nil {
		t.Fatal(err)
	}
	if p := readyOn(t, ns, "web-0", a, time.Minute); p.UID != old.UID {
		t.Error("web-0 was replaced")
	}
}

// In a namespace that has not opted in to claim deletion, volumes:
// Recreate deletes nothing and says so, in a condition, in blockedBy and
// in rollout plan; once the namespace opts in, the claim of the fenced
// node is given up.
func TestVolumesRecreateIsNotAppliedWhereTheNamespaceHasNotOptedIn(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a, _, claim := localSet(t, ns, recreate)
	b := addNode(t, ns, "b")
	waitFor(t, 30*time.Second, "condition ClaimRecreation False, ClaimDeletionForbidden", func() (bool, error) {
		s, err := osts.StatefulSets(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(s.Status.Conditions, planner.ConditionClaimRecreation)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == planner.ReasonClaimDeletionForbidden, fmt.Errorf("condition %+v", c)
	})
	failNode(t, a)
	fence(t, ns, a, false)
	blocked(t, ns, "web", "web-0", planner.ReasonClaimNotAllowed, "would delete claim data-web-0 because", quarantine+time.Minute)
	if plan := rolloutPlan(t, ns, "web"); !strings.Contains(plan, "would delete claim data-web-0 because") || !strings.Contains(plan, "may not delete PersistentVolumeClaims") {
		t.Errorf("ordinal rollout plan does not say why the claim is kept:\n%s", plan)
	}
	sameClaim(t, ns, claim)
	optIn(t, ns)
	readyOn(t, ns, "web-0", b, 2*time.Minute)
	if c := claimOf(t, ns, "data-web-0"); c.UID == claim.UID {
		t.Error("web-0 runs on its old claim")
	}
}
