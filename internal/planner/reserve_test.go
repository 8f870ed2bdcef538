package planner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

func reserving(ranges ...planner.OrdinalRange) *planner.Extended {
	return extended(func(e *planner.Extended) { e.Reserved = ranges })
}

func one(ord int32) planner.OrdinalRange { return planner.OrdinalRange{Low: ord, High: ord} }

func TestSetOrdinals(t *testing.T) {
	for _, tc := range []struct {
		name         string
		start, count int32
		reserved     []planner.OrdinalRange
		want         []int32
	}{
		{name: "without reservations the ordinals run from the start", start: 2, count: 3, want: []int32{2, 3, 4}},
		{name: "a reserved ordinal is skipped and one more is taken at the end", count: 3, reserved: []planner.OrdinalRange{one(1)}, want: []int32{0, 2, 3}},
		{name: "ranges and integers combine, in any order", count: 4, reserved: []planner.OrdinalRange{{Low: 5, High: 7}, one(0), {Low: 2, High: 3}}, want: []int32{1, 4, 8, 9}},
		{name: "reservations below the start change nothing", start: 10, count: 2, reserved: []planner.OrdinalRange{{Low: 0, High: 9}}, want: []int32{10, 11}},
		{name: "overlapping ranges are one", count: 2, reserved: []planner.OrdinalRange{{Low: 0, High: 4}, {Low: 2, High: 6}}, want: []int32{7, 8}},
		{name: "zero replicas have no ordinals", count: 0, reserved: []planner.OrdinalRange{one(0)}, want: []int32{}},
		{name: "the ordinals stop at the largest a name can carry", start: 2147483645, count: 3, reserved: []planner.OrdinalRange{one(2147483646)}, want: []int32{2147483645, 2147483647}},
		{name: "a range up to the largest ordinal leaves nothing above it", start: 5, count: 2, reserved: []planner.OrdinalRange{{Low: 6, High: 2147483647}}, want: []int32{5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, planner.SetOrdinals(tc.start, tc.count, tc.reserved)); diff != "" {
				t.Errorf("ordinals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReserveOrdinals(t *testing.T) {
	three := steady(testgen.Replicas(3))
	two := steady(testgen.Replicas(2))
	par := steady(testgen.Replicas(3), testgen.Parallel())
	zero := steady(testgen.Replicas(0))
	for _, tc := range []struct {
		name  string
		f     fixture
		e     *planner.Extended
		pods  []*corev1.Pod
		steps []string
		waits []string
	}{{
		name:  "reserving a running pod's ordinal with the same replicas first creates the next free ordinal",
		f:     three,
		e:     reserving(one(1)),
		pods:  three.pods(0, 1, 2),
		steps: []string{"replicas: CreatePod web-3 at current"},
	}, {
		name:  "under OrderedReady the reserved pod goes once the new one is Ready",
		f:     three,
		e:     reserving(one(1)),
		pods:  three.pods(0, 1, 2, 3),
		steps: []string{"scale down: DeletePod web-1"},
	}, {
		name:  "under OrderedReady the reserved pod waits while the new one is not Ready",
		f:     three,
		e:     reserving(one(1)),
		pods:  with(three.pods(0, 1, 2), three.pod(3, testgen.NotReady(now))),
		waits: []string{"web-3: Running, not Ready"},
	}, {
		name:  "reserving an ordinal while lowering replicas removes exactly that pod",
		f:     two,
		e:     reserving(one(1)),
		pods:  two.pods(0, 1, 2),
		steps: []string{"scale down: DeletePod web-1"},
	}, {
		name:  "under Parallel the removal and the new pod go together, the removal first",
		f:     par,
		e:     reserving(one(1)),
		pods:  par.pods(0, 1, 2),
		steps: []string{"scale down*1: DeletePod web-1", "replicas*2: CreatePod web-3 at current"},
	}, {
		name:  "a reserved ordinal gets no pod when the set is created",
		f:     three,
		e:     reserving(planner.OrdinalRange{Low: 1, High: 2}),
		pods:  three.pods(0),
		steps: []string{"replicas: CreatePod web-3 at current"},
	}, {
		name:  "a Failed pod being removed goes in turn even while a lower pod is unavailable",
		f:     zero,
		e:     reserving(),
		pods:  with(zero.pods(1), zero.pod(0, testgen.Failed()), zero.pod(2, testgen.Failed())),
		steps: []string{"scale down: DeletePod web-2"},
	}, {
		name:  "an apps/v1 set waits on it for ever, as upstream does",
		f:     zero,
		pods:  with(zero.pods(1), zero.pod(0, testgen.Failed()), zero.pod(2, testgen.Failed())),
		waits: []string{"web-2: Failed"},
	}, {
		name:  "a set without reservations plans as before",
		f:     three,
		e:     reserving(),
		pods:  three.pods(0, 1),
		steps: []string{"replicas: CreatePod web-2 at current"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			plan := tc.f.ext(tc.e, tc.pods...)
			if diff := cmp.Diff(tc.steps, tc.f.summary(plan)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.waits, waitLines(plan)); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReservedPodRemovalSaysWhy(t *testing.T) {
	f := steady(testgen.Replicas(3))
	plan := f.ext(reserving(one(1), planner.OrdinalRange{Low: 5, High: 7}), f.pods(0, 1, 2, 3)...)
	want := "scale down: ordinal 1 of web-1 is reserved (reserveOrdinals 1, 5..7), so the pod is removed; the set's ordinals are 0, 2..3 (1, 5..7 reserved)"
	if len(plan.Steps) != 1 || len(plan.Steps[0].Actions) != 1 || plan.Steps[0].Actions[0].Reason != want {
		t.Fatalf("want one action with reason %q, got %+v", want, plan.Steps)
	}
	plan = f.ext(reserving(one(1)), f.pods(0, 1, 2, 3, 4)...)
	if got := plan.Steps[0].Actions[0].Reason; !strings.Contains(got, "web-4 is outside ordinals 0, 2..3 (1 reserved)") {
		t.Errorf("scale-down reason %q does not name the set's ordinals and reservations", got)
	}
}

func TestReservedClaimsFollowWhenScaled(t *testing.T) {
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data"), testgen.Retention(appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType))
	pods := f.pods(0, 1, 2)
	in := f.input(pods, testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "data", 1), testgen.Claim(f.set, "data", 2))
	in.Extended = reserving(one(1))
	plan := compute(in)
	want := []string{"claim retention: UpdateClaim data-web-1 owners=[Pod/web-1]", "scale down: DeletePod web-1"}
	if diff := cmp.Diff(want, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

func TestReservedStatus(t *testing.T) {
	f := steady(testgen.Replicas(3))
	plan := f.ext(reserving(one(1)), f.pods(0, 2, 3)...)
	if len(plan.Steps) != 0 {
		t.Errorf("a set whose pods sit at its free ordinals has nothing to do, got %v", f.summary(plan))
	}
	st := plan.Status
	if st.Replicas != 3 || st.ReadyReplicas != 3 || st.CurrentReplicas != 3 || st.UpdatedReplicas != 3 || st.AvailableReplicas != 3 {
		t.Errorf("status counts %+v, want 3 of each: the reserved ordinal is not missing", st)
	}
}
