package nodeloss

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
	"github.com/ordinal-sh/ordinal/internal/plane/provisioner"
)

// A node that fails keeps its pods, as on any cluster: the set does not
// replace a pod it cannot see stop (at most one pod per identity), and
// names it. Once the node is fenced, the pod garbage collector deletes
// them and both kinds recreate them on the other node, with their claims
// on network storage: upstream's recovery, unchanged.
func TestAFencedNodesPodsAreRecreatedElsewhereAsUpstream(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	if _, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), set(ns, "apps", 1, ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createExtended(t, set(ns, "ext", 1, ""), nil)
	appsPod, extPod := readyOn(t, ns, "apps-0", a, time.Minute), readyOn(t, ns, "ext-0", a, time.Minute)
	appsClaim, extClaim := claimOf(t, ns, "data-apps-0").UID, claimOf(t, ns, "data-ext-0").UID
	b := addNode(t, ns, "b")

	failNode(t, a)
	waitFor(t, 30*time.Second, "ext's status to name ext-0 on the lost node with the command that fences it", func() (bool, error) {
		s, err := osts.StatefulSets(ns).Get(context.Background(), "ext", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, f := range s.Status.BlockedBy {
			if f.Pod == "ext-0" && f.Reason == "NodeLost" && strings.Contains(f.Message, nodes.FenceCommand(a)) {
				return true, nil
			}
		}
		return false, fmt.Errorf("blockedBy %+v", s.Status.BlockedBy)
	})
	for _, p := range []*corev1.Pod{appsPod, extPod} {
		cur, err := client.CoreV1().Pods(ns).Get(context.Background(), p.Name, metav1.GetOptions{})
		if err != nil || cur.UID != p.UID {
			t.Fatalf("%s was replaced while its node is only NotReady (err %v)", p.Name, err)
		}
	}
	// The recorder writes events in the background: the event may reach
	// the API server after the status that names the same loss.
	waitFor(t, 30*time.Second, "a NodeLost event on ext", func() (bool, error) { return hasEvent(ns, "ext", "NodeLost") })

	fenced := time.Now()
	fence(t, ns, a, false)
	for _, p := range []*corev1.Pod{appsPod, extPod} {
		np := readyOn(t, ns, p.Name, b, time.Minute)
		if np.UID == p.UID {
			t.Errorf("%s is still the old pod", p.Name)
		}
	}
	if claimOf(t, ns, "data-apps-0").UID != appsClaim || claimOf(t, ns, "data-ext-0").UID != extClaim {
		t.Errorf("a claim on network storage was recreated")
	}
	t.Logf("recovered %s after fencing, test %s", time.Since(fenced).Round(time.Second), time.Since(began).Round(time.Second))
}

// localClass creates a StorageClass of the plane's provisioner that
// binds WaitForFirstConsumer, whose volumes are pinned to a node.
func localClass(t *testing.T, name string) {
	t.Helper()
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner.DefaultName,
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer), ReclaimPolicy: ptr.To(corev1.PersistentVolumeReclaimDelete)}
	if _, err := client.StorageV1().StorageClasses().Create(context.Background(), sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.StorageV1().StorageClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

// volumeHost is the host (kubernetes.io/hostname) the claim's volume is
// pinned to.
func volumeHost(t *testing.T, c *corev1.PersistentVolumeClaim) string {
	t.Helper()
	pv, err := client.CoreV1().PersistentVolumes().Get(context.Background(), c.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading volume of %s: %v", c.Name, err)
	}
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		t.Fatalf("volume %s of %s has no node affinity", pv.Name, c.Name)
	}
	return pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values[0]
}

// On local volumes a fenced node's pod cannot start anywhere else while
// it keeps its claim. volumes: Recreate gives the claim up and the pod
// starts on the other node with a new, empty one; without it, the claim
// is kept and the pod waits, Pending, for its node.
func TestVolumesRecreateMovesAPodOffTheLocalVolumeOfAFencedNode(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ns := newNamespace(t)
	class := "local-" + ns
	localClass(t, class)
	optIn(t, ns)
	a := addNode(t, ns, "a")
	createExtended(t, set(ns, "moves", 1, class), &v1alpha1.NodeFailurePolicy{Volumes: v1alpha1.RecreateNodeFailureVolumes})
	createExtended(t, set(ns, "stays", 1, class), nil)
	moves, stays := readyOn(t, ns, "moves-0", a, time.Minute), readyOn(t, ns, "stays-0", a, time.Minute)
	oldMoves, oldStays := claimOf(t, ns, "data-moves-0"), claimOf(t, ns, "data-stays-0")
	if h := volumeHost(t, oldMoves); h != hostOf(a) {
		t.Fatalf("the local volume of moves-0 is pinned to %s, want %s", h, hostOf(a))
	}
	b := addNode(t, ns, "b")
	failNode(t, a)
	fence(t, ns, a, false)
	fenced := time.Now()
	np := readyOn(t, ns, "moves-0", b, 90*time.Second)
	recovered := time.Since(fenced)
	newMoves := claimOf(t, ns, "data-moves-0")
	if np.UID == moves.UID || newMoves.UID == oldMoves.UID {
		t.Errorf("moves-0 or its claim is the old one")
	}
	if h := volumeHost(t, newMoves); h != hostOf(b) {
		t.Errorf("the new volume of moves-0 is pinned to %s, want %s", h, hostOf(b))
	}
	// Events reach the API server after the action, through the
	// controller's event broadcaster and its client's rate limit.
	waitFor(t, 30*time.Second, "a ClaimRecreatedFromLostNode event", func() (bool, error) {
		return hasEvent(ns, "moves", "ClaimRecreatedFromLostNode")
	})
	waitFor(t, 30*time.Second, "stays-0 recreated and Pending on its kept claim", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), "stays-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.UID != stays.UID && p.Spec.NodeName == "" && p.Status.Phase == corev1.PodPending,
			fmt.Errorf("uid changed %v, node %q, phase %s", p.UID != stays.UID, p.Spec.NodeName, p.Status.Phase)
	})
	if c := claimOf(t, ns, "data-stays-0"); c.UID != oldStays.UID || c.DeletionTimestamp != nil {
		t.Errorf("the claim of stays-0, which has no policy, was deleted")
	}
	waitFor(t, 30*time.Second, "a warning that stays-0's claim holds it to the lost node", func() (bool, error) {
		return hasEvent(ns, "stays", "ClaimOnLostNode")
	})
	t.Logf("moves-0 Ready on %s %s after fencing; test %s", b, recovered.Round(time.Second), time.Since(began).Round(time.Second))
}

// Without a fencing agent, replaceAfterSeconds force-deletes a pod whose
// node stays NotReady, and the set recreates it on another node; the
// failed node is never fenced.
func TestReplaceAfterReplacesAPodOfANodeThatStaysNotReady(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	createExtended(t, set(ns, "web", 1, "-"), &v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr.To[int32](2)})
	old := readyOn(t, ns, "web-0", a, time.Minute)
	b := addNode(t, ns, "b")
	failNode(t, a)
	notReady := time.Now()
	np := readyOn(t, ns, "web-0", b, time.Minute)
	if np.UID == old.UID {
		t.Fatal("web-0 is the old pod")
	}
	waitFor(t, 30*time.Second, "a ForceDeletedFromLostNode event on web", func() (bool, error) {
		return hasEvent(ns, "web", "ForceDeletedFromLostNode")
	})
	n, err := client.CoreV1().Nodes().Get(context.Background(), a, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, taint := range n.Spec.Taints {
		if taint.Key == corev1.TaintNodeOutOfService {
			t.Errorf("node %s was fenced", a)
		}
	}
	t.Logf("web-0 Ready on %s %s after its node turned NotReady; test %s", b, time.Since(notReady).Round(time.Second), time.Since(began).Round(time.Second))
}

// A failed node that comes back takes its pods back as a kubelet does:
// the node turns Ready, and so does its pod, the same object, which no
// set replaced while the node was away.
func TestARestoredNodeTakesItsPodsBack(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	createExtended(t, set(ns, "web", 1, "-"), nil)
	old := readyOn(t, ns, "web-0", a, time.Minute)
	failNode(t, a)
	waitFor(t, 30*time.Second, "web-0 marked not Ready on the lost node", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return !isReady(p), fmt.Errorf("ready %v", isReady(p))
	})
	if err := nodes.Restore(context.Background(), client, a); err != nil {
		t.Fatal(err)
	}
	back := readyOn(t, ns, "web-0", a, time.Minute)
	if back.UID != old.UID {
		t.Errorf("web-0 was replaced")
	}
	t.Logf("test %s", time.Since(began).Round(time.Second))
}

// With both policies and no fencing agent, a pod on a local volume is
// force-deleted and recreated, but waits, Pending, for its volume's node;
// once the node is fenced later on, which changes no pod, its claim is
// given up and it starts on the other node.
func TestAFenceAfterReplaceAfterGivesUpTheLocalVolume(t *testing.T) {
	t.Parallel()
	began := time.Now()
	ns := newNamespace(t)
	class := "local-" + ns
	localClass(t, class)
	optIn(t, ns)
	a := addNode(t, ns, "a")
	createExtended(t, set(ns, "web", 1, class), &v1alpha1.NodeFailurePolicy{
		Volumes: v1alpha1.RecreateNodeFailureVolumes, ReplaceAfterSeconds: ptr.To[int32](2)})
	old := readyOn(t, ns, "web-0", a, time.Minute)
	oldClaim := claimOf(t, ns, "data-web-0")
	b := addNode(t, ns, "b")
	failNode(t, a)
	waitFor(t, 30*time.Second, "web-0 replaced and Pending on its local claim", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.UID != old.UID && p.Spec.NodeName == "", fmt.Errorf("uid changed %v, node %q", p.UID != old.UID, p.Spec.NodeName)
	})
	if c := claimOf(t, ns, "data-web-0"); c.UID != oldClaim.UID || c.DeletionTimestamp != nil {
		t.Fatalf("the claim was given up while its node was only NotReady")
	}
	fence(t, ns, a, false)
	fenced := time.Now()
	readyOn(t, ns, "web-0", b, 90*time.Second)
	if claimOf(t, ns, "data-web-0").UID == oldClaim.UID {
		t.Errorf("web-0 runs on %s with its old claim", b)
	}
	t.Logf("web-0 Ready on %s %s after fencing; test %s", b, time.Since(fenced).Round(time.Second), time.Since(began).Round(time.Second))
}
