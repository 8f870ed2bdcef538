package integration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// withPostCreate gives the set a postCreate hook.
func withPostCreate(h *v1alpha1.LifecycleHook) func(*v1alpha1.StatefulSet) {
	return func(s *v1alpha1.StatefulSet) { s.Spec.Lifecycle = &v1alpha1.Lifecycle{PostCreate: h} }
}

// livePods lists the pods that exist and are not terminating.
func livePods(t *testing.T, ns string) map[string]corev1.Pod {
	t.Helper()
	out := map[string]corev1.Pod{}
	for _, p := range listPods(t, ns) {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p
		}
	}
	return out
}

// memberOf is the status.members entry of ordinal ord.
func memberOf(set *v1alpha1.StatefulSet, ord int32) (v1alpha1.MemberStatus, bool) {
	i := slices.IndexFunc(set.Status.Members, func(m v1alpha1.MemberStatus) bool { return m.Ordinal == ord })
	if i < 0 {
		return v1alpha1.MemberStatus{}, false
	}
	return set.Status.Members[i], true
}

// joins waits until pod is labelled postCreate Pending and, with hold,
// checks that it is held out of service meanwhile and that no other pod
// is created or replaced; then it answers Done and waits until the pod is
// Ready.
func joins(t *testing.T, ns, pod string, hold bool) {
	t.Helper()
	waitFor(t, time.Minute, pod+" labelled postCreate Pending", func() (bool, error) {
		p := pendingPods(t, ns, v1alpha1.PostCreateHookLabel)
		return slices.Equal(p, []string{pod}), fmt.Errorf("pending %v", p)
	})
	waitExtended(t, ns, 30*time.Second, pod+" in blockedBy and members", func(s *v1alpha1.StatefulSet) error {
		if err := blocked(pod, "PostCreateHookPending", false)(s); err != nil {
			return err
		}
		ord := int32(pod[len(pod)-1] - '0')
		m, ok := memberOf(s, ord)
		if !ok || m.Ready || len(m.Hooks) != 1 || m.Hooks[0] != (v1alpha1.MemberHook{Name: "postCreate", State: v1alpha1.HookPending}) {
			return fmt.Errorf("member %d %+v, want not Ready with postCreate Pending", ord, m)
		}
		return nil
	})
	if hold {
		holds(t, ns, pod)
	}
	labelHook(t, ns, pod, v1alpha1.PostCreateHookLabel, v1alpha1.HookDone)
	waitFor(t, 30*time.Second, pod+" Ready", func() (bool, error) {
		p, ok := getPod(t, ns, pod)
		return ok && podReadyNow(p) && gateCondition(p) == corev1.ConditionTrue, fmt.Errorf("%s not Ready yet", pod)
	})
}

// holds checks for 2 s that pod stays out of service and that no other
// pod is created or replaced.
func holds(t *testing.T, ns, pod string) {
	t.Helper()
	before := livePods(t, ns)
	consistently(t, 2*time.Second, "nothing else happens while "+pod+" joins", func() error {
		now := livePods(t, ns)
		if len(now) != len(before) {
			return fmt.Errorf("pods %d, were %d", len(now), len(before))
		}
		for name, p := range now {
			if before[name].UID != p.UID {
				return fmt.Errorf("%s replaced", name)
			}
		}
		p := now[pod]
		if gateCondition(&p) == corev1.ConditionTrue || podReadyNow(&p) {
			return fmt.Errorf("%s is in service (gate %s) before its hook is done", pod, gateCondition(&p))
		}
		return nil
	})
}

func podReadyNow(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// A postCreate handshake holds each new pod out of service until it is
// Done, and the next pod waits for it: at creation under OrderedReady,
// and in a rolling update with maxUnavailable 1.
func TestAPostCreateHookHoldsTheNextPod(t *testing.T) {
	t.Parallel()
	ns := hookNamespace(t)
	createExtended(t, asExtended(t, webSet(ns, replicas(2)), withPostCreate(handshakeHook(300, v1alpha1.HookHalt))))
	joins(t, ns, "web-0", true)
	joins(t, ns, "web-1", false)
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	rollTo(t, ns, imageNew)
	joins(t, ns, "web-1", true)
	joins(t, ns, "web-0", false)
	set := waitExtended(t, ns, time.Minute, "the rollout complete", extendedSettled)
	for _, m := range set.Status.Members {
		if !m.Ready || !m.UpToDate || len(m.Hooks) != 1 || m.Hooks[0].State != v1alpha1.HookDone {
			t.Errorf("member %+v, want Ready, up to date, postCreate Done", m)
		}
	}
}

// An offline member under whenScaled Delete: its pod is stopped, no other
// pod takes its place, its claim is kept (the same object, with no owner
// that would delete it), and removing it from the list creates the pod
// again on that claim.
func TestAnOfflineMemberKeepsItsClaims(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	const del = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	createExtended(t, asExtended(t, webSet(ns, replicas(3), withClaims(), retention(del, del))))
	waitExtended(t, ns, time.Minute, "the set ready", extendedSettled)
	claim, ok := getClaim(t, ns, "www-web-1")
	if !ok {
		t.Fatal("claim www-web-1 missing")
	}
	uids := podUIDs(t, ns)
	patchExtended(t, ns, `{"spec":{"offlineOrdinals":[1]}}`)
	waitExtended(t, ns, time.Minute, "web-1 stopped", func(s *v1alpha1.StatefulSet) error {
		if _, ok := livePods(t, ns)["web-1"]; ok || len(listPods(t, ns)) != 2 {
			return fmt.Errorf("pods %v, want web-0 and web-2 only", slices.Sorted(maps.Keys(livePods(t, ns))))
		}
		m, _ := memberOf(s, 1)
		if m.State != v1alpha1.MemberOffline || !m.ClaimsInStep {
			return fmt.Errorf("member 1 %+v, want Offline with its claims in step", m)
		}
		st := s.Status
		if st.ObservedGeneration < s.Generation || st.Replicas != 2 || st.AvailableReplicas != 2 || condition(s, "Available").Status != "True" {
			return fmt.Errorf("status %+v, want 2 pods available and Available True", st)
		}
		return nil
	})
	keptUIDs(t, ns, uids, "web-0", "web-2")
	consistently(t, 2*time.Second, "the claim kept and no pod at ordinal 1 or 3", func() error {
		c, ok := getClaim(t, ns, "www-web-1")
		if !ok || c.UID != claim.UID || c.DeletionTimestamp != nil {
			return fmt.Errorf("claim www-web-1 gone or replaced")
		}
		owners, err := claimOwners(c)
		if err != nil {
			return err
		}
		if !slices.Equal(owners, []string{v1alpha1.Kind.Kind + "/web"}) {
			return fmt.Errorf("claim owners %v, want the set alone (whenDeleted Delete)", owners)
		}
		live := livePods(t, ns)
		if _, ok := live["web-1"]; ok {
			return fmt.Errorf("web-1 created again")
		}
		if _, ok := live["web-3"]; ok {
			return fmt.Errorf("web-3 created in web-1's place")
		}
		return nil
	})
	patchExtended(t, ns, `{"spec":{"offlineOrdinals":null}}`)
	waitExtended(t, ns, time.Minute, "web-1 back", extendedSettled)
	p, ok := getPod(t, ns, "web-1")
	if !ok {
		t.Fatal("web-1 missing")
	}
	if got := claimOf(p, "www"); got != "www-web-1" {
		t.Errorf("web-1 mounts %q, want www-web-1", got)
	}
	if c, ok := getClaim(t, ns, "www-web-1"); !ok || c.UID != claim.UID {
		t.Errorf("claim www-web-1 replaced: it must be the one kept")
	}
	keptUIDs(t, ns, uids, "web-0", "web-2")
}

// claimOf is the claim the pod's volume name mounts.
func claimOf(p *corev1.Pod, volume string) string {
	for _, v := range p.Spec.Volumes {
		if v.Name == volume && v.PersistentVolumeClaim != nil {
			return v.PersistentVolumeClaim.ClaimName
		}
	}
	return ""
}

// A postUpdate http hook after each update in place: the receiver refuses
// each pod's first call, and the next pod is changed only once the last
// one's hook answered, so the calls come pod by pod; no pod is recreated.
func TestAPostUpdateHookAfterEachUpdateInPlace(t *testing.T) {
	t.Parallel()
	ns := hookNamespace(t)
	srv := newHookServer(t, nil)
	readySet(t, ns, 3, podUpdate(v1alpha1.PodUpdateInPlaceIfPossible), func(s *v1alpha1.StatefulSet) {
		s.Spec.Lifecycle = &v1alpha1.Lifecycle{PostUpdate: httpLifecycleHook(srv.URL+"/joined", 60, v1alpha1.HookHalt)}
	})
	if calls := srv.calls(); len(calls) != 0 {
		t.Fatalf("calls before any update: %+v", calls)
	}
	before := identities(t, ns)
	jsonPatchExtended(t, ns, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"`+imageNew+`"}]`)
	set := waitExtended(t, ns, time.Minute, "the rollout complete", extendedSettled)
	if after := identities(t, ns); !maps.Equal(before, after) {
		t.Errorf("pods recreated: %v, were %v", after, before)
	}
	var order []string
	for _, c := range srv.calls() {
		if c.Hook != "postUpdate" || c.Revision != set.Status.UpdateRevision {
			t.Errorf("call %+v, want postUpdate at the update revision", c)
		}
		order = append(order, fmt.Sprintf("%s#%d", c.Pod, c.Attempt))
	}
	if want := []string{"web-2#1", "web-2#2", "web-1#1", "web-1#2", "web-0#1", "web-0#2"}; !slices.Equal(order, want) {
		t.Errorf("calls %v, want %v: one pod at a time, each answered before the next is changed", order, want)
	}
	for _, p := range listPods(t, ns) {
		if p.Labels[v1alpha1.PostUpdateHookLabel] != v1alpha1.HookDone {
			t.Errorf("%s labelled %s=%q, want Done", p.Name, v1alpha1.PostUpdateHookLabel, p.Labels[v1alpha1.PostUpdateHookLabel])
		}
	}
}

// status.members holds at most 100 members, and the API server accepts
// the status at that size; membersOmitted counts the rest.
func TestStatusMembersIsCapped(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	createExtended(t, asExtended(t, webSet(ns, replicas(v1alpha1.MaxMembers+3), parallel())))
	waitExtended(t, ns, 2*time.Minute, "the set ready with members capped", func(s *v1alpha1.StatefulSet) error {
		if err := extendedSettled(s); err != nil {
			return err
		}
		if len(s.Status.Members) != v1alpha1.MaxMembers || s.Status.MembersOmitted != 3 {
			return fmt.Errorf("%d members, %d omitted; want %d and 3", len(s.Status.Members), s.Status.MembersOmitted, v1alpha1.MaxMembers)
		}
		for i, m := range s.Status.Members {
			if m.Ordinal != int32(i) || !m.Ready || !m.UpToDate || m.State != v1alpha1.MemberRunning {
				return fmt.Errorf("member %d is %+v, want ordinal %d Running, Ready and up to date", i, m, i)
			}
		}
		return nil
	})
}

// Values of offlineOrdinals that are no ordinals are refused with the
// rule's message; ordinals and ranges are accepted.
func TestInvalidOfflineOrdinalsAreRefused(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	sets := extendedSets(t, ns)
	const message = `spec.offlineOrdinals entries must be ordinals (integers from 0 to 2147483647) or ranges "low-high" of them with low <= high, such as 5 or "5-7"`
	for name, v := range map[string]intstr.IntOrString{
		"a negative integer":                      intstr.FromInt32(-1),
		"a range whose low end is above its high": intstr.FromString("7-5"),
		"a word": intstr.FromString("five"),
	} {
		t.Run(name, func(t *testing.T) {
			set := extended(t, webSet(ns))
			set.Spec.OfflineOrdinals = []intstr.IntOrString{intstr.FromInt32(2), v}
			_, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if want := ruleError("spec.offlineOrdinals", message); err == nil || err.Error() != want {
				t.Errorf("\n got: %v\nwant: %s", err, want)
			}
		})
	}
	set := extended(t, webSet(ns))
	set.Spec.OfflineOrdinals = []intstr.IntOrString{intstr.FromInt32(0), intstr.FromString("5-7"), intstr.FromString("2147483647")}
	if _, err := sets.Create(context.Background(), set, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("valid offlineOrdinals refused: %v", err)
	}
}
