package nodeloss

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// A three-member "database" whose simulated pods elect a leader, all on
// one node: once the node is cordoned the set moves its members off it
// itself, followers first, the leader last and only after its switchover
// handed leadership to a member already moved, never more than one member
// down (a quorum of three); a drain then finds nothing of it to evict.
func TestACordonedNodesMembersMoveOffAfterTheLeadersSwitchover(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	database(t, ns)
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		readyOn(t, ns, name, a, time.Minute)
	}
	leader := oneLeader(t, ns)
	b := addNode(t, ns, "b")
	w := watchMembers(t, ns)

	if out, errOut, code := ordinal("node", "cordon", a); code != 0 {
		t.Fatalf("ordinal node cordon exited %d: %s %s", code, errOut, out)
	}
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		readyOn(t, ns, name, b, 2*time.Minute)
	}
	gone, fewest, leaderless := w.stop()
	leaderWentLast(t, gone, fewest, leaderless, leader)
	waitFor(t, 10*time.Second, "a MovingOffNode event for "+leader, func() (bool, error) {
		return movingEvent(ns, planner.MovingOffNode(leader, a, "cordoned"))
	})
	out, errOut, code := ordinal("node", "drain", a, "--timeout", "30s")
	if code != 0 || strings.Contains(out, "evicting pod "+ns+"/") || strings.Contains(out, "requesting the eviction of pod "+ns+"/") {
		t.Errorf("drain after the moves exited %d (%s), evicting the set's pods:\n%s", code, errOut, out)
	}
}

// oneLeader waits until one Ready pod of ns is labelled leader and returns
// it.
func oneLeader(t *testing.T, ns string) string {
	t.Helper()
	var leader string
	waitFor(t, time.Minute, "one leader elected", func() (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		var leaders []string
		for _, p := range pods.Items {
			if p.Labels["role"] == "leader" && isReady(&p) {
				leaders = append(leaders, p.Name)
			}
		}
		if len(leaders) == 1 {
			leader = leaders[0]
		}
		return len(leaders) == 1, fmt.Errorf("leaders %v", leaders)
	})
	return leader
}

// movingEvent reports whether ns has a MovingOffNode event saying msg.
func movingEvent(ns, msg string) (bool, error) {
	evs, err := client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	var seen []string
	for _, e := range evs.Items {
		if e.Reason == planner.EventMovingOffNode {
			if e.Message == msg {
				return true, nil
			}
			seen = append(seen, e.Message)
		}
	}
	return false, fmt.Errorf("MovingOffNode events %q", seen)
}

// memberWatch follows a namespace's pods: the order in which they began
// to go, each with its role then, the fewest available (Ready, not going)
// at any observed state, and the states without a Ready leader once one
// was seen.
type memberWatch struct {
	mu         sync.Mutex
	store      cache.Store
	gone       []string
	fewest     int
	elected    bool
	leaderless []string
	cancel     context.CancelFunc
}

func watchMembers(t *testing.T, ns string) *memberWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &memberWatch{fewest: 1 << 30, cancel: cancel}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	w.store = inf.GetStore()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.observe(nil, nil) },
		UpdateFunc: func(o, n any) { w.observe(o.(*corev1.Pod), n.(*corev1.Pod)) },
		DeleteFunc: func(any) { w.observe(nil, nil) },
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return w
}

func (w *memberWatch) observe(old, cur *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old != nil && old.DeletionTimestamp == nil && cur.DeletionTimestamp != nil {
		w.gone = append(w.gone, cur.Name+"="+cur.Labels["role"])
	}
	up, leaders := 0, 0
	var states []string
	for _, obj := range w.store.List() {
		p := obj.(*corev1.Pod)
		if available(p) {
			up++
			if p.Labels["role"] == "leader" {
				leaders++
			}
		}
		states = append(states, fmt.Sprintf("%s role=%q ready=%v going=%v", p.Name, p.Labels["role"], isReady(p), p.DeletionTimestamp != nil))
	}
	w.fewest = min(w.fewest, up)
	switch {
	case leaders > 0:
		w.elected = true
	case w.elected:
		slices.Sort(states)
		w.leaderless = append(w.leaderless, strings.Join(states, ", "))
	}
}

// stop ends the watch and returns what it saw.
func (w *memberWatch) stop() (gone []string, fewest int, leaderless []string) {
	w.cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.gone), w.fewest, slices.Clone(w.leaderless)
}
