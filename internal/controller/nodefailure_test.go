package controller

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/setkind"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// lossClock is a controller's clock a test moves on.
type lossClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *lossClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *lossClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// lossNode is a node called name with hostname label host whose Ready
// condition has status ready ("" for none) since since.
func lossNode(name, host string, ready corev1.ConditionStatus, since time.Time, taints ...corev1.Taint) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "5",
		Labels: map[string]string{corev1.LabelHostname: host}}, Spec: corev1.NodeSpec{Taints: taints}}
	if ready != "" {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, LastTransitionTime: metav1.NewTime(since)}}
	}
	return n
}

var outOfService = corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute}

// localVolume is volume name bound to claim, pinned to host.
func localVolume(name, host string, claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			ClaimRef: &corev1.ObjectReference{Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{host}}}}}}}}}
}

// lossCase is an extended set web of two ordinals under policy, whose
// web-0 runs Ready on node n0 (host h0) and whose web-1, on pod1's node
// or gone (pod1 nil), has its claim on a local volume pinned to host1.
type lossCase struct {
	policy v1alpha1.NodeFailurePolicy
	host1  string
	pod1   func(*corev1.Pod) // nil: web-1 has no pod
	nodes  []*corev1.Node
	// setup runs on the fake client before the controller starts.
	setup func(*fake.Clientset)
}

// start builds the case's objects and a controller on them whose clock
// the test moves, and returns it, its client, the clock and the set's key.
func (lc lossCase) start(t *testing.T) (*Controller, *fake.Clientset, *lossClock, string) {
	t.Helper()
	set := testgen.StatefulSet("web", testgen.Replicas(2), testgen.ClaimTemplates("data"))
	set.ResourceVersion = "1"
	ext, err := testgen.Extended(set)
	if err != nil {
		t.Fatal(err)
	}
	ext.Spec.NodeFailurePolicy = &lc.policy
	rev := testgen.RevisionOf(set, 1)
	rev.UID, rev.ResourceVersion = "rev-uid", "1"
	rev.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, v1alpha1.Kind)}
	objs := []kruntime.Object{rev, lossNode("n0", "h0", corev1.ConditionTrue, testgen.Epoch)}
	for _, n := range lc.nodes {
		objs = append(objs, n)
	}
	for i, host := range []string{"h0", lc.host1} {
		claim := testgen.Claim(set, "data", int32(i))
		claim.ResourceVersion, claim.Status.Phase = "3", corev1.ClaimBound
		claim.Spec.VolumeName = "pv-" + claim.Name
		objs = append(objs, claim, localVolume(claim.Spec.VolumeName, host, claim))
	}
	pods := []*corev1.Pod{testgen.Pod(set, 0, testgen.At(rev))}
	pods[0].Spec.NodeName = "n0"
	if lc.pod1 != nil {
		p := testgen.Pod(set, 1, testgen.At(rev))
		lc.pod1(p)
		pods = append(pods, p)
	}
	for _, p := range pods {
		p.ResourceVersion = "7"
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, v1alpha1.Kind)}
		objs = append(objs, p)
	}
	client := likeAnAPIServer(fake.NewClientset(objs...))
	if lc.setup != nil {
		lc.setup(client)
	}
	clock := &lossClock{now: testgen.Epoch.Add(time.Hour)}
	c := startTestControllerWith(t, client, ext, func(c *Controller) { c.now = clock.Now })
	waitForNodeCaches(t, c)
	return c, client, clock, setkind.Extended.Key(set.Namespace, set.Name)
}

// syncs syncs key once and returns the deletes of claims and pods the
// client received since the last call, as "claim NAME" and "pod NAME
// grace G".
func syncDeletes(t *testing.T, c *Controller, client *fake.Clientset, key string) []string {
	t.Helper()
	waitCached(t, "the controller's own writes", func() bool { return c.exp.pending(key, c.cachedPod(testgen.Namespace)) == "" })
	before := len(client.Actions())
	_, _ = c.sync(context.Background(), key)
	var out []string
	for _, a := range client.Actions()[before:] {
		d, ok := a.(k8stesting.DeleteAction)
		if !ok {
			continue
		}
		switch d.GetResource().Resource {
		case "persistentvolumeclaims":
			out = append(out, "claim "+d.GetName())
		case "pods":
			out = append(out, "pod "+d.GetName()+" grace "+graceWord(d.GetDeleteOptions().GracePeriodSeconds))
		}
	}
	return out
}

func graceWord(g *int64) string {
	if g == nil {
		return "default"
	}
	return strconv.FormatInt(*g, 10)
}

// mayDeleteClaims makes the fake API server answer every
// SelfSubjectAccessReview with allowed.
func mayDeleteClaims(allowed bool) func(*fake.Clientset) {
	return func(c *fake.Clientset) {
		c.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, kruntime.Object, error) {
			r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
			r.Status.Allowed = allowed
			return true, r, nil
		})
	}
}

var recreate = v1alpha1.NodeFailurePolicy{Volumes: v1alpha1.RecreateNodeFailureVolumes}

// Pods of nodes whose hostname label is not their name, such as nodes
// named by their DNS name: a volume pinned to the label is on a live node
// however the node is called, and its claim is kept while its ordinal
// has no pod or an unscheduled one.
func TestAVolumePinnedToALiveNodesHostnameLabelIsKept(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod1 func(*corev1.Pod)
	}{
		{name: "while the ordinal has no pod"},
		{name: "while its pod waits to be scheduled", pod1: func(p *corev1.Pod) { p.Status = corev1.PodStatus{Phase: corev1.PodPending} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lc := lossCase{policy: recreate, host1: "h1", pod1: tc.pod1,
				nodes: []*corev1.Node{lossNode("n1.example.internal", "h1", corev1.ConditionTrue, testgen.Epoch)}}
			c, client, clock, key := lc.start(t)
			for range 2 {
				if got := syncDeletes(t, c, client, key); slices.Contains(got, "claim data-web-1") {
					t.Fatalf("deletes %v: the claim on the live node n1.example.internal (hostname h1) was given up", got)
				}
				clock.step(time.Hour)
			}
		})
	}
}

// The out-of-service taint says a node is shut down; on a node that is
// Ready it is a mistake (or an autoscaler's): upstream's pod garbage
// collector and attach/detach controller act on it only beside NotReady,
// and so does the node-failure policy.
func TestAFenceOnAReadyNodeGivesUpNoClaim(t *testing.T) {
	lc := lossCase{policy: recreate, host1: "n1",
		nodes: []*corev1.Node{lossNode("n1", "n1", corev1.ConditionTrue, testgen.Epoch, outOfService)}}
	c, client, clock, key := lc.start(t)
	for range 2 {
		if got := syncDeletes(t, c, client, key); slices.Contains(got, "claim data-web-1") {
			t.Fatalf("deletes %v: a claim of a Ready node was given up for its taint alone", got)
		}
		clock.step(time.Hour)
	}
}

// A host no node carries is not given up at once: a node deleted and
// registered again (kubectl delete node, then its kubelet restarts)
// comes back within moments. Its claims wait for the quarantine.
func TestAGoneHostIsQuarantinedBeforeItsClaimsAreGivenUp(t *testing.T) {
	c, client, _, key := lossCase{policy: recreate, host1: "h1"}.start(t)
	if got := syncDeletes(t, c, client, key); slices.Contains(got, "claim data-web-1") {
		t.Fatalf("deletes %v: the claim of a host gone a moment ago was given up at once", got)
	}
}

// A node without a Ready condition has no time since which it is NotReady:
// replaceAfterSeconds must not count from the year 1.
func TestANodeWithoutAReadyConditionStartsNoReplaceClock(t *testing.T) {
	lc := lossCase{policy: v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](60)}, host1: "h0",
		pod1:  func(p *corev1.Pod) { p.Spec.NodeName = "n1" },
		nodes: []*corev1.Node{lossNode("n1", "n1", "", time.Time{})}}
	c, client, _, key := lc.start(t)
	if got := syncDeletes(t, c, client, key); len(got) > 0 {
		t.Fatalf("deletes %v of a pod whose node never reported a Ready condition", got)
	}
}

// A Ready Unknown condition without a lastTransitionTime starts the clock
// when the controller first sees it.
func TestAnUnknownNodeWithoutATransitionTimeCountsFromWhenItIsSeen(t *testing.T) {
	lc := lossCase{policy: v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](60)}, host1: "h0",
		pod1:  func(p *corev1.Pod) { p.Spec.NodeName = "n1" },
		nodes: []*corev1.Node{lossNode("n1", "n1", corev1.ConditionUnknown, time.Time{})}}
	c, client, clock, key := lc.start(t)
	if got := syncDeletes(t, c, client, key); len(got) > 0 {
		t.Fatalf("deletes %v when the node is first seen", got)
	}
	clock.step(59 * time.Second)
	if got := syncDeletes(t, c, client, key); len(got) > 0 {
		t.Fatalf("deletes %v before replaceAfterSeconds from the first sight", got)
	}
	clock.step(time.Second)
	if got := syncDeletes(t, c, client, key); !slices.Equal(got, []string{"pod web-1 grace 0"}) {
		t.Fatalf("deletes %v replaceAfterSeconds after the first sight, want the force delete of web-1", got)
	}
}

// A kubelet that answers (Ready False) stops its own pods: only a node
// that stopped answering (Ready Unknown) has its pods force-deleted.
func TestANodeThatReportsNotReadyHasNoPodForceDeleted(t *testing.T) {
	lc := lossCase{policy: v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](60)}, host1: "h0",
		pod1:  func(p *corev1.Pod) { p.Spec.NodeName = "n1" },
		nodes: []*corev1.Node{lossNode("n1", "n1", corev1.ConditionFalse, testgen.Epoch)}}
	c, client, _, key := lc.start(t)
	if got := syncDeletes(t, c, client, key); len(got) > 0 {
		t.Fatalf("deletes %v of a pod whose kubelet reports NotReady", got)
	}
}

// The force delete reads the node live first and carries the pod's
// resourceVersion: a node the cache shows lost but that is Ready again,
// or a pod its returning kubelet rewrote, is left alone.
func TestAForceDeleteReadsTheNodeLiveAndPreconditionsThePodsVersion(t *testing.T) {
	lost := lossNode("n1", "n1", corev1.ConditionUnknown, testgen.Epoch)
	onLost := func(p *corev1.Pod) { p.Spec.NodeName = "n1" }
	replace := v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](60)}
	t.Run("a node Ready in a live read keeps its pod", func(t *testing.T) {
		back := lost.DeepCopy()
		back.Status.Conditions[0].Status = corev1.ConditionTrue
		lc := lossCase{policy: replace, host1: "h0", pod1: onLost, nodes: []*corev1.Node{lost},
			setup: func(c *fake.Clientset) {
				c.PrependReactor("get", "nodes", func(a k8stesting.Action) (bool, kruntime.Object, error) {
					return a.(k8stesting.GetAction).GetName() == "n1", back, nil
				})
			}}
		c, client, _, key := lc.start(t)
		if got := syncDeletes(t, c, client, key); len(got) > 0 {
			t.Fatalf("deletes %v although the node is Ready in a live read", got)
		}
	})
	t.Run("the delete is preconditioned on the pod's UID and resourceVersion", func(t *testing.T) {
		c, client, _, key := lossCase{policy: replace, host1: "h0", pod1: onLost, nodes: []*corev1.Node{lost}}.start(t)
		before := len(client.Actions())
		_, _ = c.sync(context.Background(), key)
		var pre *metav1.Preconditions
		for _, a := range client.Actions()[before:] {
			if d, ok := a.(k8stesting.DeleteAction); ok && d.GetResource().Resource == "pods" {
				pre = d.GetDeleteOptions().Preconditions
			}
		}
		if pre == nil || ptr.Deref(pre.UID, "") != "uid-web-1" || ptr.Deref(pre.ResourceVersion, "") != "7" {
			t.Fatalf("force delete preconditions %+v, want UID uid-web-1 and resourceVersion 7", pre)
		}
	})
}

// Only a namespace that opted in lets the controller delete claims: where
// it may not, volumes: Recreate deletes nothing and says so.
func TestVolumesRecreateDeletesNoClaimWhereTheControllerMayNot(t *testing.T) {
	c, client, clock, key := lossCase{policy: recreate, host1: "h1", setup: mayDeleteClaims(false)}.start(t)
	for range 3 {
		if got := syncDeletes(t, c, client, key); slices.Contains(got, "claim data-web-1") {
			t.Fatalf("deletes %v in a namespace where the controller may not delete claims", got)
		}
		clock.step(time.Hour)
	}
	ext, err := c.ext.client.StatefulSets(testgen.Namespace).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(ext.Status.Conditions, planner.ConditionClaimRecreation)
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != planner.ReasonClaimDeletionForbidden {
		t.Errorf("condition %+v, want ClaimRecreation False ClaimDeletionForbidden", cond)
	}
	var blocked []string
	for _, b := range ext.Status.BlockedBy {
		blocked = append(blocked, b.Reason)
	}
	if !slices.Contains(blocked, planner.ReasonClaimNotAllowed) {
		t.Errorf("blockedBy reasons %v, want %s", blocked, planner.ReasonClaimNotAllowed)
	}
}

// A host gone, or with every node NotReady and fenced, for the quarantine
// gives its claims up, after a live list shows it still so; a node that
// carries the label in that list keeps them.
func TestAHostLostPastTheQuarantineGivesItsClaimsUpAfterALiveList(t *testing.T) {
	fenced := lossNode("n1.example.internal", "h1", corev1.ConditionUnknown, testgen.Epoch, outOfService)
	for _, tc := range []struct {
		name  string
		nodes []*corev1.Node
	}{
		{name: "a host no node carries"},
		{name: "a host whose node is NotReady and fenced", nodes: []*corev1.Node{fenced}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, client, clock, key := lossCase{policy: recreate, host1: "h1", nodes: tc.nodes, setup: mayDeleteClaims(true)}.start(t)
			if got := syncDeletes(t, c, client, key); len(got) > 0 {
				t.Fatalf("deletes %v at the quarantine's start", got)
			}
			clock.step(c.nodeFacts.quarantine - time.Second)
			if got := syncDeletes(t, c, client, key); len(got) > 0 {
				t.Fatalf("deletes %v before the quarantine's end", got)
			}
			clock.step(time.Second)
			if got := syncDeletes(t, c, client, key); !slices.Equal(got, []string{"claim data-web-1"}) {
				t.Fatalf("deletes %v at the quarantine's end, want claim data-web-1", got)
			}
		})
	}
	t.Run("a node that registers with the label, seen only in the live list, keeps them", func(t *testing.T) {
		lists := 0
		back := lossNode("n1.example.internal", "h1", corev1.ConditionTrue, testgen.Epoch)
		c, client, clock, key := lossCase{policy: recreate, host1: "h1", setup: func(f *fake.Clientset) {
			mayDeleteClaims(true)(f)
			f.PrependReactor("list", "nodes", func(a k8stesting.Action) (bool, kruntime.Object, error) {
				if a.(k8stesting.ListAction).GetListRestrictions().Labels.Empty() {
					return false, nil, nil
				}
				if lists++; lists < 3 {
					return true, &corev1.NodeList{}, nil
				}
				return true, &corev1.NodeList{Items: []corev1.Node{*back}}, nil
			})
		}}.start(t)
		_ = syncDeletes(t, c, client, key)
		clock.step(time.Hour)
		if got := syncDeletes(t, c, client, key); len(got) > 0 {
			t.Fatalf("deletes %v although a live list shows a node with the label", got)
		}
		if lists != 3 {
			t.Errorf("%d live lists of the host, want 3: one each sync, one right before the delete", lists)
		}
	})
}

// A node deleted and registered again under its name is another object:
// its UID starts the quarantine of a fenced host again.
func TestANodeRegisteredAgainStartsTheQuarantineAgain(t *testing.T) {
	m := newNodeMemory(func() time.Time { return testgen.Epoch })
	first := lossNode("n1", "h1", corev1.ConditionUnknown, testgen.Epoch, outOfService)
	since := m.lostSince("h1", planner.HostFenced, []*corev1.Node{first})
	again := first.DeepCopy()
	again.UID = "uid-n1-again"
	m.now = func() time.Time { return testgen.Epoch.Add(time.Hour) }
	if got := m.lostSince("h1", planner.HostFenced, []*corev1.Node{first}); !got.Equal(since) {
		t.Errorf("the same node's run started again at %s", got)
	}
	if got := m.lostSince("h1", planner.HostFenced, []*corev1.Node{again}); !got.Equal(testgen.Epoch.Add(time.Hour)) {
		t.Errorf("a node registered again continues the run from %s", got)
	}
	if m.confirm("h1", []*corev1.Node{first}) {
		t.Error("a live list of the old object confirmed the new object's run")
	}
}

// The memory follows node events between syncs: a host seen live again
// ends its run, and a node deleted, or no longer Unknown, loses its clock.
func TestNodeEventsKeepTheMemoryHonestBetweenSyncs(t *testing.T) {
	now := testgen.Epoch
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{hostIndex: indexByHost})
	f := &nodeFacts{hosts: idx, memory: newNodeMemory(func() time.Time { return now })}
	unknown := lossNode("n1", "h1", corev1.ConditionUnknown, time.Time{})
	if got := f.memory.unknownSince(unknown); !got.Equal(now) {
		t.Fatalf("first sight of an Unknown node without a time: %s", got)
	}
	f.memory.lostSince("h1", planner.HostGone, nil)
	now = now.Add(time.Minute)
	back := lossNode("n1", "h1", corev1.ConditionTrue, now)
	if err := idx.Add(back); err != nil {
		t.Fatal(err)
	}
	f.nodeChanged(back, false)
	if _, ok := f.memory.lost["h1"]; ok {
		t.Error("a host seen live again is still remembered lost")
	}
	if _, ok := f.memory.unknown[unknown.UID]; ok {
		t.Error("a node seen Ready again keeps its Unknown clock")
	}
	f.memory.unknownSince(unknown)
	f.nodeChanged(unknown, true)
	if _, ok := f.memory.unknown[unknown.UID]; ok {
		t.Error("a deleted node keeps its Unknown clock")
	}
}
