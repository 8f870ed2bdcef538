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
	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// The plane of this package serves the EvictionRequest API
// (EvictionRequestAPI on, TestMain) and runs its eviction request
// controller; Ordinal's controller is the responder of its extended sets'
// pods.
const (
	responder = "apps.ordinal.dev/statefulset-controller"
	evictor   = "imperative-eviction.k8s.io/evictor"
)

// database creates the three-member "database" of the drain tests: its
// simulated pods elect a leader, role=leader is an exclusive quorum role
// and the leader hands over (a switchover handshake, 60 s, Halt) before
// it goes; each of also changes the set before it is created.
func database(t *testing.T, ns string, also ...func(*v1alpha1.StatefulSet)) {
	t.Helper()
	s := extendedSet(t, set(ns, "db", 3, "-"), nil)
	s.Spec.Template.Annotations = map[string]string{nodes.AnnotationRole: nodes.RoleElect}
	s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{
		{Name: "leader", Quorum: true, Exclusive: true}, {Name: "follower", Quorum: true}}}
	s.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: &v1alpha1.LifecycleHook{Handshake: &v1alpha1.HandshakeHook{},
		TimeoutSeconds: 60, FailurePolicy: v1alpha1.HookHalt}}
	for _, f := range also {
		f(s)
	}
	if _, err := osts.StatefulSets(ns).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// leaderWentLast fails the test unless the members went followers first
// and leader last, never while leading, with two of three Available and
// a Ready leader at every observed state.
func leaderWentLast(t *testing.T, gone []string, fewest int, leaderless []string, leader string) {
	t.Helper()
	if len(gone) != 3 || !strings.HasPrefix(gone[2], leader+"=") {
		t.Errorf("members went as %v, want the two followers, then %s", gone, leader)
	}
	for _, g := range gone {
		if strings.HasSuffix(g, "=leader") {
			t.Errorf("%s went while it still led", g)
		}
	}
	if fewest < 2 {
		t.Errorf("%d members available at the fewest, want 2 (a quorum of three)", fewest)
	}
	if len(leaderless) > 0 {
		t.Errorf("states without a Ready leader: %v", leaderless)
	}
}

// A drain of the leader's node through eviction requests: ordinal node
// drain cordons the node and asks each member to go with an
// EvictionRequest. Ordinal's controller, the responder each pod names at
// priority 10000, moves them itself, followers first and the leader last,
// after its switchover handed leadership to a member already moved; from
// a watch of the pods, two members stay Available and a Ready leader is
// there at every moment. Each member's Eviction ends TargetEvicted with
// the set's responder Completed, heartbeating while it moved, and the
// imperative evictor never Active: the set, not the Eviction API, removed
// every pod.
func TestADrainThroughEvictionRequestsMovesTheLeaderAfterItsSwitchover(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	database(t, ns)
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		if p := readyOn(t, ns, name, a, time.Minute); !namesResponder(p) {
			t.Fatalf("%s's eviction responders %+v do not name %s at priority 10000", name, p.Spec.EvictionResponders, responder)
		}
	}
	leader := oneLeader(t, ns)
	b := addNode(t, ns, "b")
	w, evs := watchMembers(t, ns), watchEvictions(t, ns)

	out, errOut, code := ordinal("node", "drain", a, "--via", "eviction-requests", "--timeout", "2m")
	if code != 0 {
		t.Fatalf("ordinal node drain exited %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "requesting the eviction of pod "+ns+"/db-0") || strings.Contains(out, "evicting pod ") {
		t.Errorf("the drain did not ask through eviction requests alone:\n%s", out)
	}
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		readyOn(t, ns, name, b, 2*time.Minute)
	}
	gone, fewest, leaderless := w.stop()
	leaderWentLast(t, gone, fewest, leaderless, leader)
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		evs.movedBySet(t, name)
	}
}

// An eviction request alone, with no node drained (a descheduler's): the
// set moves the leader in its own turn, after its switchover, and the
// request ends TargetEvicted with the set's responder Completed.
func TestAnEvictionRequestAloneMovesTheLeaderAfterItsSwitchover(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	database(t, ns)
	for _, name := range []string{"db-0", "db-1", "db-2"} {
		readyOn(t, ns, name, a, time.Minute)
	}
	leader := oneLeader(t, ns)
	old, err := client.CoreV1().Pods(ns).Get(context.Background(), leader, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, evs := watchMembers(t, ns), watchEvictions(t, ns)
	request(t, old, "test.ordinal.dev/descheduler")

	waitFor(t, 2*time.Minute, leader+" created again and Ready", func() (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(context.Background(), leader, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return p.UID != old.UID && isReady(p), fmt.Errorf("uid %s, ready %v", p.UID, isReady(p))
	})
	gone, fewest, leaderless := w.stop()
	if len(gone) != 1 || gone[0] != leader+"=follower" {
		t.Errorf("members went as %v, want %s alone, once it followed", gone, leader)
	}
	if fewest < 2 || len(leaderless) > 0 {
		t.Errorf("%d members available at the fewest (want 2), states without a Ready leader: %v", fewest, leaderless)
	}
	evs.movedBySet(t, leader)
	waitFor(t, 30*time.Second, "the request reports TargetEvicted", func() (bool, error) {
		er, err := client.LifecycleV1alpha1().EvictionRequests(ns).Get(context.Background(), "ask-"+leader, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return conditionTrue(er.Status.Conditions, "TargetEvicted"), fmt.Errorf("conditions %+v", er.Status.Conditions)
	})
}

// The pods of an apps/v1 set name no responder: a drain through eviction
// requests reaches them through the plane's imperative evictor, which
// calls the Eviction API and asks again while their budget refuses; the
// drain ends by itself with never more than one pod down.
func TestADrainThroughEvictionRequestsEvictsAnAppsV1SetUnderItsBudget(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	a := addNode(t, ns, "a")
	if _, err := client.AppsV1().StatefulSets(ns).Create(context.Background(), set(ns, "web", 2, "-"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web-0", "web-1"} {
		if p := readyOn(t, ns, name, a, time.Minute); len(p.Spec.EvictionResponders) != 0 {
			t.Errorf("apps/v1 pod %s names responders %+v", name, p.Spec.EvictionResponders)
		}
	}
	b := addNode(t, ns, "b")
	budget(t, ns, "web", intstr.FromInt32(1), 1)
	lowest, evs := watchAvailable(t, ns, 2), watchEvictions(t, ns)
	external(t, ns, a)
	out, errOut, code := ordinal("node", "drain", a, "--timeout", "3m")
	if code != 0 || !strings.Contains(out, "requesting the eviction of pod "+ns+"/web-0") {
		t.Fatalf("ordinal node drain (--via auto) exited %d: %s\n%s", code, errOut, out)
	}
	for _, name := range []string{"web-0", "web-1"} {
		readyOn(t, ns, name, b, time.Minute)
	}
	if low := lowest(); low < 1 {
		t.Errorf("%d pods available at the lowest, want at least 1 (the budget allows one disruption)", low)
	}
	for _, name := range []string{"web-0", "web-1"} {
		if s := evs.of(name); !slices.Contains(s.states[evictor], lifecyclev1alpha1.ResponderStateCompleted) || !s.evicted {
			t.Errorf("%s's Eviction: %+v, want the evictor Completed and the pod TargetEvicted", name, s)
		}
	}
}

// namesResponder reports whether p names Ordinal's controller as an
// eviction responder at the managing controller's priority.
func namesResponder(p *corev1.Pod) bool {
	return slices.ContainsFunc(p.Spec.EvictionResponders, func(r corev1.EvictionResponder) bool {
		return r.Name == responder && r.Priority != nil && *r.Priority == 10000
	})
}

// request asks for pod's eviction as requester, with an EvictionRequest
// named ask-<pod>.
func request(t *testing.T, pod *corev1.Pod, requester string) {
	t.Helper()
	er := &lifecyclev1alpha1.EvictionRequest{ObjectMeta: metav1.ObjectMeta{Name: "ask-" + pod.Name, Namespace: pod.Namespace},
		Spec: lifecyclev1alpha1.EvictionRequestSpec{
			Target:    lifecyclev1alpha1.EvictionRequestTarget{Pod: &lifecyclev1alpha1.EvictionRequestPodReference{Name: pod.Name, UID: pod.UID}},
			Requester: requester, Intent: lifecyclev1alpha1.EvictionRequestIntentEviction}}
	if _, err := client.LifecycleV1alpha1().EvictionRequests(pod.Namespace).Create(context.Background(), er, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func conditionTrue(conds []metav1.Condition, typ string) bool {
	return slices.ContainsFunc(conds, func(c metav1.Condition) bool { return c.Type == typ && c.Status == metav1.ConditionTrue })
}

// evictionWatch follows a namespace's Evictions: for each target pod
// name, every state each responder was seen in, how many heartbeats the
// set's responder wrote, whether it completed, and whether the Eviction
// reported its target evicted.
type evictionWatch struct {
	mu   sync.Mutex
	seen map[string]*evictionSeen
}

type evictionSeen struct {
	states     map[string][]lifecyclev1alpha1.ResponderStateType
	heartbeats map[string]bool
	completed  bool
	evicted    bool
	messages   []string
}

func watchEvictions(t *testing.T, ns string) *evictionWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &evictionWatch{seen: map[string]*evictionSeen{}}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Lifecycle().V1alpha1().Evictions().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.observe,
		UpdateFunc: func(_, o any) { w.observe(o) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return w
}

func (w *evictionWatch) observe(obj any) {
	ev, ok := obj.(*lifecyclev1alpha1.Eviction)
	if !ok || ev.Spec.Target.Pod == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen[ev.Spec.Target.Pod.Name]
	if s == nil {
		s = &evictionSeen{states: map[string][]lifecyclev1alpha1.ResponderStateType{}, heartbeats: map[string]bool{}}
		w.seen[ev.Spec.Target.Pod.Name] = s
	}
	for _, r := range ev.Status.TargetResponders {
		if !slices.Contains(s.states[r.Name], r.State) {
			s.states[r.Name] = append(s.states[r.Name], r.State)
		}
	}
	for _, r := range ev.Status.Responders {
		if r.Name != responder {
			continue
		}
		if r.HeartbeatTime != nil {
			s.heartbeats[r.HeartbeatTime.String()] = true
		}
		if r.Message != nil && !slices.Contains(s.messages, *r.Message) {
			s.messages = append(s.messages, *r.Message)
		}
		s.completed = s.completed || r.CompletionTime != nil
	}
	s.evicted = s.evicted || conditionTrue(ev.Status.Conditions, "TargetEvicted")
}

// of is what the watch saw of pod name's Evictions.
func (w *evictionWatch) of(name string) evictionSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := w.seen[name]; s != nil {
		return *s
	}
	return evictionSeen{}
}

// movedBySet waits until pod name's Eviction has ended TargetEvicted and
// checks that the set's responder did it: Active, heartbeating, then
// Completed, and the imperative evictor never Active.
func (w *evictionWatch) movedBySet(t *testing.T, name string) {
	t.Helper()
	waitFor(t, 30*time.Second, name+"'s Eviction TargetEvicted", func() (bool, error) {
		s := w.of(name)
		return s.evicted, fmt.Errorf("seen %+v", s)
	})
	s := w.of(name)
	if !slices.Equal(s.states[responder], []lifecyclev1alpha1.ResponderStateType{"Active", "Completed"}) || !s.completed || len(s.heartbeats) == 0 {
		t.Errorf("%s: the set's responder went %v (completed %v, %d heartbeats), want Active, heartbeating, then Completed; messages %q",
			name, s.states[responder], s.completed, len(s.heartbeats), s.messages)
	}
	if slices.Contains(s.states[evictor], lifecyclev1alpha1.ResponderStateActive) {
		t.Errorf("%s: the imperative evictor was Active (%v): the Eviction API, not the set, removed the pod", name, s.states[evictor])
	}
}
