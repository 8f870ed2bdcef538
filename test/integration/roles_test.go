package integration

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
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/plane/nodes"
)

// withRoles gives the set spec.roles on the label "role".
func withRoles(values ...v1alpha1.Role) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: values} }
}

// withSwitchover gives the set lifecycle.switchover.
func withSwitchover(h *v1alpha1.LifecycleHook) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.Lifecycle = &v1alpha1.Lifecycle{Switchover: h} }
}

var (
	quorumLeader   = v1alpha1.Role{Name: "leader", Quorum: true, Exclusive: true}
	quorumFollower = v1alpha1.Role{Name: "follower", Quorum: true}
	plainLeader    = v1alpha1.Role{Name: "leader", Exclusive: true}
)

// roleWatch follows a namespace's pods: the order in which they began to
// go, with the role each had then, and whether, once a leader was first
// seen, any observed state had no Ready pod labelled leader that was not
// going away.
type roleWatch struct {
	mu         sync.Mutex
	store      cache.Store
	gone       []string
	elected    bool
	leaderless []string
}

func watchRoles(t *testing.T, ns string) *roleWatch {
	t.Helper()
	w := &roleWatch{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	w.store = inf.GetStore()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { w.observe(nil, nil) },
		UpdateFunc: func(oldObj, newObj any) {
			w.observe(oldObj.(*corev1.Pod), newObj.(*corev1.Pod))
		},
		DeleteFunc: func(any) { w.observe(nil, nil) },
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return w
}

// observe records a pod that began to go and judges the leadership of
// the state the store holds now.
func (w *roleWatch) observe(old, cur *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old != nil && old.DeletionTimestamp == nil && cur.DeletionTimestamp != nil {
		w.gone = append(w.gone, cur.Name+"="+cur.Labels["role"])
	}
	var leaders []string
	for _, obj := range w.store.List() {
		p := obj.(*corev1.Pod)
		if p.Labels["role"] == "leader" && p.DeletionTimestamp == nil && isReady(p) {
			leaders = append(leaders, p.Name)
		}
	}
	switch {
	case len(leaders) > 0:
		w.elected = true
	case w.elected:
		var states []string
		for _, obj := range w.store.List() {
			p := obj.(*corev1.Pod)
			states = append(states, fmt.Sprintf("%s role=%q ready=%v going=%v", p.Name, p.Labels["role"], isReady(p), p.DeletionTimestamp != nil))
		}
		w.leaderless = append(w.leaderless, strings.Join(states, ", "))
	}
}

func (w *roleWatch) snapshot() (gone, leaderless []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.gone), slices.Clone(w.leaderless)
}

// waitOneLeader waits until one Ready pod of ns is labelled leader and
// the other two follower, and returns the leader.
func waitOneLeader(t *testing.T, ns, what string) string {
	t.Helper()
	var leader string
	waitFor(t, time.Minute, what+": one leader and two followers", func() (bool, error) {
		l, f := podsWithRole(t, ns, "leader"), podsWithRole(t, ns, "follower")
		if len(l) == 1 {
			leader = l[0]
		}
		return len(l) == 1 && len(f) == 2, fmt.Errorf("leaders %v, followers %v", l, f)
	})
	return leader
}

// podsWithRole lists the pods labelled role that are Ready and stay.
func podsWithRole(t *testing.T, ns, role string) []string {
	t.Helper()
	var out []string
	for _, p := range listPods(t, ns) {
		if p.Labels["role"] == role && p.DeletionTimestamp == nil && isReady(&p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// In a three-member "database" whose simulated pods elect a leader, the
// rolling update replaces the followers first, then asks the leader to
// switch over, and replaces the old leader only once another Ready pod
// leads: there is no moment without a leader.
func TestARoleAwareRolloutUpdatesFollowersFirstAndSwitchesOverTheLeader(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	readySet(t, ns, 3, func(s *v1alpha1.StatefulSet) {
		s.Spec.Template.Annotations = map[string]string{nodes.AnnotationRole: nodes.RoleElect}
	}, withRoles(quorumLeader, quorumFollower), withSwitchover(handshakeHook(60, v1alpha1.HookHalt)))
	leader := waitOneLeader(t, ns, "elected")
	w := watchRoles(t, ns)
	rollTo(t, ns, imageNew)
	set := waitExtended(t, ns, 2*time.Minute, "the rollout complete", extendedSettled)
	gone, leaderless := w.snapshot()
	if len(gone) != 3 || !strings.HasPrefix(gone[2], leader+"=") {
		t.Errorf("pods went as %v, want the two followers, then %s", gone, leader)
	}
	for _, g := range gone {
		if strings.HasSuffix(g, "=leader") {
			t.Errorf("%s went while it still led", g)
		}
	}
	if len(leaderless) > 0 {
		t.Errorf("states without a Ready leader: %v", leaderless)
	}
	if c := condition(set, v1alpha1.ConditionRoleConflict); c.Status != metav1.ConditionFalse {
		t.Errorf("condition %s %+v, want False", v1alpha1.ConditionRoleConflict, c)
	}
	for _, p := range listPods(t, ns) {
		if _, ok := p.Labels[v1alpha1.SwitchoverHookLabel]; ok {
			t.Errorf("%s keeps the switchover label after the rollout", p.Name)
		}
	}
}

// runSwitchoverTimeout rolls a set whose leader, web-0 labelled by hand,
// nobody moves: the switchover times out after two seconds, and the
// failure policy decides.
func runSwitchoverTimeout(t *testing.T, policy v1alpha1.HookFailurePolicy) (ns string, leaderUID string) {
	t.Helper()
	ns = newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	readySet(t, ns, 3, withRoles(plainLeader), withSwitchover(handshakeHook(2, policy)))
	setRole(t, ns, "web-0", "leader")
	pod, _ := getPod(t, ns, "web-0")
	rollTo(t, ns, imageNew)
	waitFor(t, time.Minute, "web-0 asked to switch over", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		if !ok || p.UID != pod.UID {
			t.Fatalf("web-0 went before its switchover started")
		}
		return p.Labels[v1alpha1.SwitchoverHookLabel] == v1alpha1.HookPending, fmt.Errorf("web-0 labels %v", p.Labels)
	})
	return ns, string(pod.UID)
}

// A switchover that times out under Halt leaves the leader alone and
// fails the rollout at it.
func TestASwitchoverThatTimesOutUnderHaltKeepsTheLeader(t *testing.T) {
	t.Parallel()
	ns, uid := runSwitchoverTimeout(t, v1alpha1.HookHalt)
	waitExtended(t, ns, time.Minute, "web-0 blocked by its switchover", blocked("web-0", "SwitchoverHookTimedOut", true))
	consistently(t, 2*time.Second, "web-0 kept", func() error {
		if p, _ := getPod(t, ns, "web-0"); p == nil || string(p.UID) != uid || p.DeletionTimestamp != nil {
			return fmt.Errorf("web-0 replaced or going")
		}
		return nil
	})
	if c := condition(getExtended(t, ns), v1alpha1.ConditionProgressing); c.Status != metav1.ConditionFalse {
		t.Errorf("Progressing %+v, want False", c)
	}
}

// Under Proceed the leader is replaced once the switchover times out.
func TestASwitchoverThatTimesOutUnderProceedReplacesTheLeader(t *testing.T) {
	t.Parallel()
	ns, uid := runSwitchoverTimeout(t, v1alpha1.HookProceed)
	waitExtended(t, ns, time.Minute, "the rollout complete", extendedSettled)
	if p, _ := getPod(t, ns, "web-0"); p == nil || string(p.UID) == uid {
		t.Errorf("web-0 was not replaced")
	}
	if _, n, err := eventsWithReason(ns, "HookFailed"); err != nil || n == 0 {
		t.Errorf("no HookFailed event (%v)", err)
	}
}

// Two pods claiming the exclusive role are both left alone, with a
// Warning and the RoleConflict condition, while the rest of the set
// updates; once one lets go, both are updated.
func TestTwoPodsClaimingAnExclusiveRoleAreLeftAlone(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	readySet(t, ns, 3, withRoles(plainLeader), func(s *v1alpha1.StatefulSet) {
		rollingUpdateOf(s).MaxUnavailable = ptr(intstr.FromInt32(3))
	}, func(s *v1alpha1.StatefulSet) { s.Spec.PodManagementPolicy = "Parallel" })
	setRole(t, ns, "web-1", "leader")
	setRole(t, ns, "web-2", "leader")
	waitExtended(t, ns, 30*time.Second, "RoleConflict True", func(s *v1alpha1.StatefulSet) error {
		if c := condition(s, v1alpha1.ConditionRoleConflict); c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "web-1, web-2") {
			return fmt.Errorf("condition %+v", c)
		}
		return nil
	})
	if _, n, err := eventsWithReason(ns, "ExclusiveRoleConflict"); err != nil || n == 0 {
		t.Errorf("no ExclusiveRoleConflict event (%v)", err)
	}
	ids := identities(t, ns)
	rollTo(t, ns, imageNew)
	waitFor(t, time.Minute, "web-0 updated", func() (bool, error) {
		p, ok := getPod(t, ns, "web-0")
		return ok && p.UID != ids["web-0"].uid && isReady(p), fmt.Errorf("web-0 not replaced and Ready yet")
	})
	consistently(t, 2*time.Second, "web-1 and web-2 kept", func() error {
		for _, name := range []string{"web-1", "web-2"} {
			if p, _ := getPod(t, ns, name); p == nil || p.UID != ids[name].uid || p.DeletionTimestamp != nil {
				return fmt.Errorf("%s replaced or going while two pods hold the role", name)
			}
		}
		return nil
	})
	setRole(t, ns, "web-1", "")
	waitExtended(t, ns, time.Minute, "the rollout complete", extendedSettled)
	if c := condition(getExtended(t, ns), v1alpha1.ConditionRoleConflict); c.Status != metav1.ConditionFalse {
		t.Errorf("after web-1 let go: condition %+v, want False", c)
	}
}

// With maxUnavailable 3 of 3 pods, a quorum of three members still loses
// one member at a time: a second disruption would leave fewer than a
// majority Available.
func TestAQuorumForbidsASecondDisruptionWhateverMaxUnavailable(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	logEvents(t, ns)
	startOrdinal(t, ns)
	readySet(t, ns, 3, func(s *v1alpha1.StatefulSet) {
		s.Spec.Template.Annotations = map[string]string{nodes.AnnotationRole: nodes.RoleElect}
		s.Spec.PodManagementPolicy = "Parallel"
		rollingUpdateOf(s).MaxUnavailable = ptr(intstr.FromInt32(3))
	}, withRoles(quorumLeader, quorumFollower))
	waitFor(t, time.Minute, "three members with their roles", func() (bool, error) {
		l, f := podsWithRole(t, ns, "leader"), podsWithRole(t, ns, "follower")
		return len(l) == 1 && len(f) == 2, fmt.Errorf("leaders %v, followers %v", l, f)
	})
	rollTo(t, ns, imageNew)
	most := 0
	waitFor(t, 2*time.Minute, "the rollout complete, never two members out at once", func() (bool, error) {
		out := 3 // a missing pod is out too
		for _, p := range listPods(t, ns) {
			if p.DeletionTimestamp == nil && isReady(&p) {
				out--
			}
		}
		most = max(most, out)
		if most > 1 {
			t.Fatalf("%d of 3 members out at once", most)
		}
		return extendedSettled(getExtended(t, ns)) == nil, fmt.Errorf("not settled")
	})
}

// roleCases are spec.roles the API server refuses, with its message.
func roleCases() []invalidCase {
	const (
		ownLabel = "spec.roles.labelKey must not be a label the controllers write (apps.ordinal.dev/*, statefulset.kubernetes.io/*, apps.kubernetes.io/*, controller-revision-hash)"
		badKey   = "spec.roles.labelKey must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
		inSel    = "spec.roles.labelKey must not be a key of spec.selector: a pod whose role changes would leave the set"
		badName  = "spec.roles.values[].name must be a label value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
		noExcl   = "spec.lifecycle.switchover moves an exclusive role: set spec.roles with at least one role of exclusive true"
		twoHeld  = "spec.nodeFailurePolicy.replaceAfterSeconds may leave two pods holding an exclusive role of spec.roles: set replaceExclusiveRoleHolders true to accept it"
		slow     = "spec.roles.roleProbe.timeoutSeconds must not exceed periodSeconds"
		badPath  = "spec.roles.roleProbe.http.path must start with '/' and hold no '#' or space"
	)
	probe := func(p v1alpha1.RoleProbe) func(*v1alpha1.StatefulSet) {
		return func(s *v1alpha1.StatefulSet) {
			s.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{plainLeader}, RoleProbe: &p}
		}
	}
	roles := func(key string, values ...v1alpha1.Role) func(*v1alpha1.StatefulSet) {
		return func(s *v1alpha1.StatefulSet) { s.Spec.Roles = &v1alpha1.Roles{LabelKey: key, Values: values} }
	}
	return []invalidCase{
		{"a role label the controller writes", roles("apps.ordinal.dev/role", plainLeader), ruleError("spec.roles.labelKey", ownLabel)},
		{"a role label key that is no label key", roles("role key", plainLeader), ruleError("spec.roles.labelKey", `"role key": `+badKey)},
		{"a role label the selector uses", roles("app", plainLeader), ruleError("spec.roles.labelKey", inSel)},
		{"a role name that is no label value", roles("role", v1alpha1.Role{Name: "-leader"}), ruleError("spec.roles.values[0].name", `"-leader": `+badName)},
		{"a switchover without an exclusive role", func(s *v1alpha1.StatefulSet) {
			roles("role", quorumFollower)(s)
			withSwitchover(handshakeHook(60, v1alpha1.HookHalt))(s)
		}, ruleError("spec.lifecycle.switchover", noExcl)},
		{"replaceAfterSeconds beside an exclusive role", func(s *v1alpha1.StatefulSet) {
			roles("role", quorumLeader, quorumFollower)(s)
			s.Spec.NodeFailurePolicy = &v1alpha1.NodeFailurePolicy{ReplaceAfterSeconds: ptr(int32(60))}
		}, ruleError("spec.nodeFailurePolicy.replaceAfterSeconds", twoHeld)},
		{"a role probe whose timeout exceeds its period", probe(v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080}, PeriodSeconds: 2, TimeoutSeconds: 3}),
			ruleError("spec.roles.roleProbe", slow)},
		{"a role probe path without its slash", probe(v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080, Path: "role"}}),
			ruleError("spec.roles.roleProbe.http.path", `"role": `+badPath)},
		{"a role probe without a port", probe(v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 0}}),
			schemaErrors("spec.roles.roleProbe.http.port: Invalid value: 0: spec.roles.roleProbe.http.port in body should be greater than or equal to 1")},
	}
}

// A role probe with only a port gets the documented defaults from the
// schema.
func TestARoleProbeGetsItsDefaults(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	set := extended(t, webSet(ns))
	set.Spec.Roles = &v1alpha1.Roles{LabelKey: "role", Values: []v1alpha1.Role{plainLeader},
		RoleProbe: &v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080}}}
	got, err := extendedSets(t, ns).Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	want := v1alpha1.RoleProbe{HTTP: v1alpha1.RoleProbeHTTP{Port: 8080, Path: v1alpha1.DefaultRoleProbePath}, PeriodSeconds: v1alpha1.DefaultRoleProbePeriod,
		TimeoutSeconds: v1alpha1.DefaultRoleProbeTimeout, FailureThreshold: v1alpha1.DefaultRoleProbeThreshold}
	if p := got.Spec.Roles.RoleProbe; p == nil || *p != want {
		t.Errorf("role probe %+v, want %+v", p, want)
	}
}
