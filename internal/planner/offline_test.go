package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func offline(ranges ...planner.OrdinalRange) func(*planner.Extended) {
	return func(e *planner.Extended) { e.Offline = ranges }
}

func ordinalsOf(l planner.Layout) []int32 {
	out := []int32{}
	for i := range l.Len() {
		out = append(out, l.At(i))
	}
	return out
}

func TestLayoutWithout(t *testing.T) {
	for _, tc := range []struct {
		name              string
		start, count      int32
		reserved, offline []planner.OrdinalRange
		want              []int32
	}{
		{name: "an offline ordinal is left out and none is added at the end", count: 4, offline: []planner.OrdinalRange{one(1)}, want: []int32{0, 2, 3}},
		{name: "offline and reserved ordinals combine", count: 4, reserved: []planner.OrdinalRange{one(1)}, offline: []planner.OrdinalRange{{Low: 2, High: 3}}, want: []int32{0, 4}},
		{name: "an offline range overlapping a reserved one removes only the set's ordinals", count: 4, reserved: []planner.OrdinalRange{{Low: 1, High: 2}}, offline: []planner.OrdinalRange{{Low: 2, High: 3}}, want: []int32{0, 4, 5}},
		{name: "offline ordinals above the last change nothing", count: 2, offline: []planner.OrdinalRange{{Low: 5, High: 9}}, want: []int32{0, 1}},
		{name: "the last ordinal offline", start: 3, count: 3, offline: []planner.OrdinalRange{{Low: 5, High: 100}}, want: []int32{3, 4}},
		{name: "every ordinal offline", count: 2, offline: []planner.OrdinalRange{{Low: 0, High: 1}}, want: []int32{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := planner.NewLayout(tc.start, tc.count, tc.reserved).Without(tc.offline)
			if diff := cmp.Diff(tc.want, ordinalsOf(l)); diff != "" {
				t.Errorf("ordinals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOfflineMembers(t *testing.T) {
	del := steady(testgen.Replicas(3), testgen.ClaimTemplates("data"), testgen.Retention(appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType))
	claims := func(f fixture, ords ...int32) []*corev1.PersistentVolumeClaim {
		var out []*corev1.PersistentVolumeClaim
		for _, o := range ords {
			out = append(out, testgen.Claim(f.set, "data", o))
		}
		return out
	}
	t.Run("the offline member's pod is stopped and its claims get no owner under whenScaled Delete", func(t *testing.T) {
		in := del.input(del.pods(0, 1, 2), claims(del, 0, 1, 2)...)
		in.Extended = extended(offline(one(1)))
		plan := compute(in)
		if diff := cmp.Diff([]string{"scale down: DeletePod web-1"}, del.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	t.Run("a claim the pod owned already is freed before the pod is deleted", func(t *testing.T) {
		pods := del.pods(0, 1, 2)
		owned := testgen.Claim(del.set, "data", 1, testgen.OwnedByPod(pods[1]))
		in := del.input(pods, append(claims(del, 0, 2), owned)...)
		in.Extended = extended(offline(one(1)))
		plan := compute(in)
		if diff := cmp.Diff([]string{"claim retention: UpdateClaim data-web-1 owners=[]", "scale down: DeletePod web-1"}, del.summary(plan)); diff != "" {
			t.Fatalf("steps (-want +got):\n%s", diff)
		}
		if refs := plan.Steps[0].Actions[0].Claim.OwnerReferences; len(refs) != 0 {
			t.Errorf("claim owner references %v, want none", refs)
		}
	})
	t.Run("no pod is created at an offline ordinal, and no other takes its place", func(t *testing.T) {
		plan := del.ext(extended(offline(one(1))), del.pods(0, 2)...)
		if diff := cmp.Diff([]string(nil), del.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if plan.Status.Replicas != 2 || plan.Status.AvailableReplicas != 2 {
			t.Errorf("replicas %d available %d, want 2 and 2", plan.Status.Replicas, plan.Status.AvailableReplicas)
		}
		if c := condition(plan.Extended.Status.Conditions, planner.ConditionAvailable); c.Status != "True" {
			t.Errorf("Available condition %v, want True: an offline member is not a missing one", c)
		}
	})
	t.Run("removing the ordinal from the list creates the pod again", func(t *testing.T) {
		in := del.input(del.pods(0, 2), claims(del, 0, 1, 2)...)
		in.Extended = extended()
		plan := compute(in)
		if diff := cmp.Diff([]string{"replicas: CreatePod web-1 at current"}, del.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
	t.Run("a rollout is not held by an offline member and completes without it", func(t *testing.T) {
		f := rollout(testgen.Replicas(3))
		plan := f.ext(extended(offline(one(1))), f.pod(0), f.pod(2))
		if diff := cmp.Diff([]string{"rolling update: DeletePod web-2"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		done := f.ext(extended(offline(one(1))), f.updated(0), f.updated(2))
		if done.Status.CurrentRevision != f.upd.Name {
			t.Errorf("currentRevision %s, want the update revision %s once both members that are not offline run it", done.Status.CurrentRevision, f.upd.Name)
		}
	})
	t.Run("an offline ordinal above replicas keeps its claims under whenScaled Delete", func(t *testing.T) {
		f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data"), testgen.Retention(appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType))
		in := f.input(f.pods(0, 1, 2), claims(f, 0, 1, 2)...)
		in.Extended = extended(offline(one(2)))
		plan := compute(in)
		if diff := cmp.Diff([]string{"scale down: DeletePod web-2"}, f.summary(plan)); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
	})
}
