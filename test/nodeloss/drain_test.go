package nodeloss

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ordinal-sh/ordinal/internal/cli/root"
	"github.com/ordinal-sh/ordinal/internal/invariant"
)

// `ordinal node drain --via evictions` (as kubectl drain) on a node
// holding both pods of a set behind a budget of one disruption: the second eviction is refused until the
// first pod runs Ready on the other node (client-go retries a refusal
// that names a delay itself, the drain every 5s one that does not), and
// then the drain ends by itself, with never more than one pod down.
func TestNodeDrainHonoursADisruptionBudgetAndRetries(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	if _, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), set(ns, "web", 2, "-"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	readyOn(t, ns, "web-0", a, time.Minute)
	readyOn(t, ns, "web-1", a, time.Minute)
	b := addNode(t, ns, "b")
	budget(t, ns, "web", intstr.FromInt32(1), 1)

	lowest := watchAvailable(t, ns, 2)
	external(t, ns, a)
	out, errOut, code := ordinal("node", "drain", a, "--via", "evictions", "--timeout", "2m")
	if code != 0 {
		t.Fatalf("ordinal node drain exited %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"node/" + a + " cordoned", "node/" + a + " drained"} {
		if !strings.Contains(out, want) {
			t.Errorf("drain printed no %q:\n%s", want, out)
		}
	}
	for _, name := range []string{"web-0", "web-1"} {
		readyOn(t, ns, name, b, time.Minute)
	}
	if low := lowest(); low < 1 {
		t.Errorf("%d pods available at the lowest, want at least 1 (the budget allows one disruption)", low)
	}
}

// A budget that allows no disruption holds a drain until its timeout,
// which names the pods left; the node stays cordoned and the pods run.
func TestNodeDrainTimesOutNamingWhatABudgetHolds(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	if _, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), set(ns, "web", 1, "-"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old := readyOn(t, ns, "web-0", a, time.Minute)
	budget(t, ns, "web", intstr.FromInt32(0), 0)

	out, errOut, code := ordinal("node", "drain", a, "--via", "evictions", "--timeout", "3s")
	if code == 0 || !strings.Contains(errOut, "web-0") || !strings.Contains(errOut, "timed out") {
		t.Fatalf("drain exited %d, stderr %q, want a failure naming web-0 as timed out\n%s", code, errOut, out)
	}
	n, err := client.CoreV1().Nodes().Get(context.Background(), a, metav1.GetOptions{})
	if err != nil || !n.Spec.Unschedulable {
		t.Errorf("node %s not left cordoned (err %v)", a, err)
	}
	if p := readyOn(t, ns, "web-0", a, time.Second); p.UID != old.UID {
		t.Error("web-0 was replaced although its budget allowed no disruption")
	}
}

// budget creates a PodDisruptionBudget of maxUnavailable over the pods of
// set name and waits until its controller allows allowed disruptions.
func budget(t *testing.T, ns, name string, maxUnavailable intstr.IntOrString, allowed int32) {
	t.Helper()
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}}
	if _, err := client.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "budget "+name+" observed", func() (bool, error) {
		got, err := client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := got.Status
		return s.ObservedGeneration == got.Generation && s.ExpectedPods > 0 && s.DisruptionsAllowed == allowed,
			fmt.Errorf("status %+v", s)
	})
}

// external tells the namespace's invariant watcher that the pods on node
// are deleted by someone other than the set's controller (the drain).
func external(t *testing.T, ns, node string) {
	t.Helper()
	pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, ok := watchers.Load(ns)
	for _, p := range pods.Items {
		if ok && p.Spec.NodeName == node {
			w.(*invariant.Watcher).ExternalDelete(p.UID)
		}
	}
}

// watchAvailable watches the pods of namespace ns from now, and returns
// a function that stops and reports the fewest Ready pods not terminating
// it saw (starting from want).
func watchAvailable(t *testing.T, ns string, want int) func() int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	up := map[string]bool{}
	for i := range list.Items {
		up[list.Items[i].Name] = available(&list.Items[i])
	}
	var mu sync.Mutex
	lowest := want
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			up[p.Name] = ev.Type != watch.Deleted && available(p)
			n := 0
			for _, ok := range up {
				if ok {
					n++
				}
			}
			mu.Lock()
			lowest = min(lowest, n)
			mu.Unlock()
		}
	}()
	stop := func() int {
		cancel()
		w.Stop()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return lowest
	}
	t.Cleanup(func() { stop() })
	return stop
}

func available(p *corev1.Pod) bool { return p.DeletionTimestamp == nil && isReady(p) }

// ordinal runs the CLI against the plane and returns what it printed and
// its exit code.
func ordinal(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := root.Main(append(args, "--kubeconfig", kubeconfig), &out, &errOut)
	return out.String(), errOut.String(), code
}
