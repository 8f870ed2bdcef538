package drain

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// drainPod is a pod on node owned by a controller of kind (none if "").
func drainPod(name, node, kind string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid")},
		Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if kind != "" {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner", UID: "owner-uid", Controller: new(true)}}
	}
	return p
}

// evictions makes c's eviction subresource refuse each pod's first
// refusals[name] evictions with 429 and then delete the pod; it returns
// the evictions asked, by pod.
func evictions(c *fake.Clientset, refusals map[string]int) func() map[string]int {
	var mu sync.Mutex
	asked := map[string]int{}
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
		mu.Lock()
		asked[ev.Name]++
		n := asked[ev.Name]
		mu.Unlock()
		if n <= refusals[ev.Name] {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		if err := c.Tracker().Delete(gvr, ev.Namespace, ev.Name); err != nil {
			return true, nil, err
		}
		return true, ev, nil
	})
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(asked)
	}
}

func TestDrainCordonsEvictsAndRetriesWhatABudgetRefuses(t *testing.T) {
	mirror := drainPod("static", "n1", "")
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		drainPod("web-0", "n1", "StatefulSet"), drainPod("web-1", "n1", "StatefulSet"),
		drainPod("other", "n2", "StatefulSet"), mirror)
	asked := evictions(c, map[string]int{"web-1": 2})
	var out bytes.Buffer
	err := Drain(context.Background(), c, "n1", Options{RetryInterval: time.Millisecond, Out: &out})
	if err != nil {
		t.Fatalf("drain: %v\n%s", err, out.String())
	}
	if n, _ := c.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{}); !n.Spec.Unschedulable {
		t.Error("node n1 not cordoned")
	}
	if got := asked(); got["web-0"] != 1 || got["web-1"] != 3 || got["other"] != 0 || got["static"] != 0 {
		t.Errorf("evictions asked %v, want web-0 once, web-1 three times (two refusals), no other", got)
	}
	if _, err := c.CoreV1().Pods("ns").Get(context.Background(), "static", metav1.GetOptions{}); err != nil {
		t.Errorf("the mirror pod: %v, want it left", err)
	}
	for _, line := range []string{"node/n1 cordoned\n", "(will retry after 1ms): Cannot evict pod", "pod/web-1 evicted\n", "node/n1 drained\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}

func TestDrainRefusesPodsThatNeedAFlagAndEvictsNone(t *testing.T) {
	empty := drainPod("scratch", "n1", "ReplicaSet")
	empty.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	done := drainPod("job-done", "n1", "")
	done.Status.Phase = corev1.PodSucceeded
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		drainPod("bare", "n1", ""), drainPod("agent", "n1", "DaemonSet"), empty, done, drainPod("web-0", "n1", "StatefulSet"))
	asked := evictions(c, nil)
	err := Drain(context.Background(), c, "n1", Options{RetryInterval: time.Millisecond})
	if !errors.Is(err, ErrDrainRefused) {
		t.Fatalf("error %v, want ErrDrainRefused", err)
	}
	for _, want := range []string{"ns/bare (no controller recreates it: --force", "ns/agent (DaemonSet-managed: --ignore-daemonsets", "ns/scratch (emptyDir data would be lost: --delete-emptydir-data"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "job-done") || strings.Contains(err.Error(), "web-0") {
		t.Errorf("error %q names a pod that needs no flag", err)
	}
	if got := asked(); len(got) != 0 {
		t.Errorf("evictions %v after a refusal, want none", got)
	}
	// With the flags the same node drains, leaving the DaemonSet's pod.
	var out bytes.Buffer
	if err := Drain(context.Background(), c, "n1", Options{RetryInterval: time.Millisecond, Force: true, IgnoreDaemonSets: true, DeleteEmptyDirData: true, Out: &out}); err != nil {
		t.Fatalf("drain with flags: %v", err)
	}
	if got := asked(); len(got) != 4 || got["agent"] != 0 {
		t.Errorf("evictions %v, want every pod's but the DaemonSet's", got)
	}
	if !strings.Contains(out.String(), "ignoring DaemonSet-managed pod ns/agent") {
		t.Errorf("output lacks the DaemonSet's pod:\n%s", out.String())
	}
}

func TestDrainTimesOutNamingThePodsLeft(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		drainPod("web-0", "n1", "StatefulSet"), drainPod("web-1", "n1", "StatefulSet"))
	evictions(c, map[string]int{"web-1": 1 << 30})
	start := time.Now()
	err := Drain(context.Background(), c, "n1", Options{RetryInterval: 10 * time.Millisecond, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrDrainTimeout) || !strings.Contains(err.Error(), "ns/web-1") || strings.Contains(err.Error(), "web-0") {
		t.Fatalf("error %v, want ErrDrainTimeout naming web-1 alone", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the drain took %s past a 200ms timeout", took)
	}
}

func TestDrainCountsAPodRecreatedUnderItsNameAsGone(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, drainPod("web-0", "n1", "StatefulSet"))
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		// The set's controller recreates web-0 at once, Pending.
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		if err := c.Tracker().Delete(gvr, "ns", "web-0"); err != nil {
			return true, nil, err
		}
		fresh := drainPod("web-0", "", "StatefulSet")
		fresh.UID = "new"
		return true, nil, c.Tracker().Add(fresh)
	})
	if err := Drain(context.Background(), c, "n1", Options{Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("drain: %v", err)
	}
}

func TestCordonAndUncordonAreIdempotent(t *testing.T) {
	c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	for _, step := range []struct {
		do   func(context.Context, kubernetes.Interface, string) error
		want bool
	}{{Cordon, true}, {Cordon, true}, {Uncordon, false}, {Uncordon, false}} {
		if err := step.do(context.Background(), c, "n1"); err != nil {
			t.Fatal(err)
		}
		if n, _ := c.CoreV1().Nodes().Get(context.Background(), "n1", metav1.GetOptions{}); n.Spec.Unschedulable != step.want {
			t.Errorf("unschedulable %v, want %v", n.Spec.Unschedulable, step.want)
		}
	}
	if err := Cordon(context.Background(), c, "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("cordoning a missing node: %v, want NotFound", err)
	}
}

// A pod whose namespace is being deleted can be neither evicted nor
// asked to go with a request (the API server creates nothing there); a
// drain, by either way, waits for the namespace's deletion to take it.
func TestADrainWaitsForAPodWhoseNamespaceIsBeingDeleted(t *testing.T) {
	for _, requests := range []bool{false, true} {
		c := fake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, drainPod("web-0", "n1", "StatefulSet"))
		terminating := func(a k8stesting.Action) (bool, runtime.Object, error) {
			if a.GetResource().Resource == "pods" && a.GetSubresource() != "eviction" {
				return false, nil, nil
			}
			err := apierrors.NewForbidden(a.GetResource().GroupResource(), "web-0", errors.New("unable to create new content in namespace ns because it is being terminated"))
			err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Message: "namespace ns is being terminated", Field: "metadata.namespace"}}
			return true, nil, err
		}
		c.PrependReactor("create", "pods", terminating)
		c.PrependReactor("create", "evictionrequests", terminating)
		if requests {
			serving(c)
		}
		go func() {
			time.Sleep(50 * time.Millisecond)
			_ = c.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "ns", "web-0")
		}()
		var out bytes.Buffer
		if err := Drain(context.Background(), c, "n1", Options{Timeout: 5 * time.Second, RetryInterval: time.Millisecond, Out: &out}); err != nil {
			t.Errorf("requests %v: drain: %v\n%s", requests, err, out.String())
		}
		for _, want := range []string{"pod ns/web-0 goes with its namespace, which is being deleted", "pod/web-0 evicted", "node/n1 drained"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("requests %v: drain printed no %q:\n%s", requests, want, out.String())
			}
		}
	}
}
