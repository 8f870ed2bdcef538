package planner_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func TestStatusMembers(t *testing.T) {
	f := rollout(testgen.Replicas(5), testgen.ClaimTemplates("data"))
	claims := []*corev1.PersistentVolumeClaim{testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "data", 1), testgen.Claim(f.set, "data", 2)}
	pods := []*corev1.Pod{
		f.pod(0),
		f.updated(1, testgen.NotReady(now), hookAt(memberHook("postCreate", false), v1alpha1.HookPending, now, f.upd.Name, 0, time.Time{})),
		f.pod(3),
	}
	in := f.input(pods, claims...)
	in.Extended = extended(offline(one(2)))
	x := compute(in).Extended.Status
	rev, upd := f.cur.Name, f.upd.Name
	want := []planner.Member{
		{Ordinal: 0, Pod: "web-0", State: "Running", Revision: rev, Ready: true, ClaimsInStep: true},
		{Ordinal: 1, Pod: "web-1", State: "Running", Revision: upd, UpToDate: true, ClaimsInStep: true,
			Hooks: []planner.MemberHook{{Name: "postCreate", State: "Pending"}}},
		{Ordinal: 2, Pod: "web-2", State: "Offline", ClaimsInStep: true},
		{Ordinal: 3, Pod: "web-3", State: "Running", Revision: rev, Ready: true},
		{Ordinal: 4, Pod: "web-4", State: "Missing"},
	}
	if diff := cmp.Diff(want, x.Members); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if x.MembersOmitted != 0 {
		t.Errorf("membersOmitted %d, want 0", x.MembersOmitted)
	}
}

// With spec.roles, each member shows its pod's role label: the label's
// value as the pod carries it, empty without one.
func TestStatusMembersShowEachPodsRole(t *testing.T) {
	f := steady(testgen.Replicas(3))
	withRole := func(role string) testgen.PodOption { return func(p *corev1.Pod) { p.Labels["role"] = role } }
	in := f.input([]*corev1.Pod{f.pod(0, withRole("leader")), f.pod(1, withRole("follower")), f.pod(2)})
	in.Extended = database()
	var got []string
	for _, m := range compute(in).Extended.Status.Members {
		got = append(got, m.Pod+"="+m.Role)
	}
	if want := []string{"web-0=leader", "web-1=follower", "web-2="}; !slices.Equal(got, want) {
		t.Errorf("members' roles %v, want %v", got, want)
	}
	in.Extended = extended()
	for _, m := range compute(in).Extended.Status.Members {
		if m.Role != "" {
			t.Errorf("%s has role %q without spec.roles", m.Pod, m.Role)
		}
	}
}

func TestStatusMembersIsCapped(t *testing.T) {
	f := steady(testgen.Replicas(1000), testgen.Parallel())
	var pods []*corev1.Pod
	for ord := int32(0); ord < 990; ord++ {
		opts := []testgen.PodOption{}
		if ord == 700 {
			opts = append(opts, testgen.NotReady(now))
		}
		pods = append(pods, f.pod(ord, opts...))
	}
	in := f.input(pods)
	in.Extended = extended(offline(planner.OrdinalRange{Low: 995, High: 996}))
	x := compute(in).Extended.Status
	if len(x.Members) != planner.MaxMembers {
		t.Fatalf("%d members, want %d", len(x.Members), planner.MaxMembers)
	}
	if x.MembersOmitted != 1000-planner.MaxMembers {
		t.Errorf("membersOmitted %d, want %d", x.MembersOmitted, 1000-planner.MaxMembers)
	}
	var attention []int32
	for _, m := range x.Members {
		if m.State != "Running" || !m.Ready {
			attention = append(attention, m.Ordinal)
		}
	}
	// 700 not Ready, 990-994 and 997-999 missing, 995-996 offline: all
	// kept, then the lowest ordinals that are fine.
	want := []int32{700, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999}
	if diff := cmp.Diff(want, attention); diff != "" {
		t.Errorf("members needing attention (-want +got):\n%s", diff)
	}
	if x.Members[0].Ordinal != 0 || x.Members[len(x.Members)-len(want)-1].Ordinal != int32(planner.MaxMembers-len(want)-1) {
		t.Errorf("the members that are fine are not the lowest ordinals: first %d", x.Members[0].Ordinal)
	}
}

// What status.members adds to a plan of a large extended set at rest.
func BenchmarkComputeOfATenThousandPodExtendedSet(b *testing.B) {
	f := steady(testgen.Replicas(10000), testgen.Parallel(), testgen.ClaimTemplates("data"))
	var pods []*corev1.Pod
	var claims []*corev1.PersistentVolumeClaim
	for ord := int32(0); ord < 10000; ord++ {
		pods = append(pods, f.pod(ord))
		claims = append(claims, testgen.Claim(f.set, "data", ord))
	}
	in := f.input(pods, claims...)
	in.Extended = extended()
	b.ReportAllocs()
	for b.Loop() {
		compute(in)
	}
}
