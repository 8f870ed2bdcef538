package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A set whose rollingUpdate block has no maxUnavailable was admitted with
// the MaxUnavailableStatefulSet gate off, and is updated as upstream
// updates it with the gate off (the same in 1.34 to 1.37).
func TestRollingUpdateWithTheGateOff(t *testing.T) {
	par := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.Partition(1), testgen.GateOff())
	ordered := rollout(testgen.Replicas(3), testgen.GateOff())
	runScenarios(t, []scenario{{
		name: "an unready pod below the partition does not hold the update (it would with a budget)",
		f:    par, pods: with(par.pods(1, 2), par.pod(0, testgen.NotReady(now))),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name: "then the next pod, once the one above it is available",
		f:    par, pods: with(par.pods(1), par.pod(0, testgen.NotReady(now)), par.updated(2)),
		steps: []string{"rolling update: DeletePod web-1"},
	}, {
		name: "an unavailable updated pod above holds it",
		f:    par, pods: with(par.pods(1), par.pod(0, testgen.NotReady(now)), par.updated(2, testgen.NotReady(now))),
		waits: []string{"web-2: Running, not Ready"},
	}, {
		name: "one pod per sync, highest ordinal first",
		f:    ordered, pods: ordered.pods(0, 1, 2),
		steps: []string{"rolling update: DeletePod web-2"},
	}, {
		name: "a broken old pod is deleted like any other: the revision is checked before readiness",
		f:    par, pods: with(par.pods(0, 1), par.pod(2, testgen.NotReady(now))),
		steps: []string{"rolling update: DeletePod web-2"},
	}})
	t.Run("the budgeted update, by contrast, waits on the unready pod below the partition", func(t *testing.T) {
		gated := rollout(testgen.Replicas(3), testgen.Parallel(), testgen.Partition(1))
		plan := compute(gated.input(with(gated.pods(1, 2), gated.pod(0, testgen.NotReady(now)))))
		if len(plan.Steps) != 0 {
			t.Errorf("want no action, got %v", gated.summary(plan))
		}
	})
}

// Every pod the rolling update deletes leaves currentReplicas, whatever its
// revision, as upstream counts.
func TestCurrentReplicasAfterAThirdRevision(t *testing.T) {
	// Three pods at A; B rolled out to web-2 with partition 2; now C with
	// partition 0: current A, update C.
	a := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:a"))
	b := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:b"))
	set := testgen.StatefulSet("web", testgen.Replicas(3), testgen.Image("app:c"))
	revA, revB, revC := testgen.RevisionOf(a, 1), testgen.RevisionOf(b, 2), testgen.RevisionOf(set, 3)
	set.Status.CurrentRevision, set.Status.UpdateRevision = revA.Name, revC.Name
	pods := []*corev1.Pod{
		testgen.Pod(set, 0, testgen.At(revA)), testgen.Pod(set, 1, testgen.At(revA)), testgen.Pod(set, 2, testgen.At(revB)),
	}
	plan := compute(planner.Input{Set: set, Pods: pods, Current: revA, Update: revC, Now: now})
	f := fixture{set: set, cur: revA, upd: revC}
	if diff := cmp.Diff([]string{"rolling update: DeletePod web-2"}, f.summary(plan)); diff != "" {
		t.Fatalf("steps mismatch (-want +got):\n%s", diff)
	}
	if got := plan.Status.CurrentReplicas; got != 1 {
		t.Errorf("currentReplicas %d, want 1 (two pods at A, minus the deleted web-2)", got)
	}
}

// Pod names with leading zeros are read as upstream reads them.
func TestLeadingZeroNames(t *testing.T) {
	f := steady(testgen.Replicas(3))
	t.Run("web-01 takes ordinal 1's place, and its identity repair is written to web-1", func(t *testing.T) {
		plan := compute(f.input(with(f.pods(0, 2), f.pod(1, testgen.Named("web-01")))))
		if diff := cmp.Diff([]string{"replicas: UpdatePod web-1"}, f.summary(plan)); diff != "" {
			t.Errorf("steps mismatch (-want +got):\n%s", diff)
		}
		if a := plan.Steps[0].Actions[0]; a.EventReason != planner.EventSuccessfulUpdate || a.FailEvent != planner.EventFailedUpdate {
			t.Errorf("events %q/%q, want upstream's SuccessfulUpdate/FailedUpdate", a.EventReason, a.FailEvent)
		}
	})
	t.Run("its failing repair stops the sync: no later pass runs, so the rolling update does not replace it", func(t *testing.T) {
		r := rollout(testgen.Replicas(3))
		plan := compute(r.input(with(r.pods(0, 2), r.pod(1, testgen.Named("web-01")))))
		if diff := cmp.Diff([]string{"replicas: UpdatePod web-1"}, r.summary(plan)); diff != "" {
			t.Errorf("steps mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("beside web-1 it is ignored, and said so", func(t *testing.T) {
		plan := compute(f.input(with(f.pods(0, 1, 2), f.pod(1, testgen.Named("web-01")))))
		if len(plan.Steps) != 0 {
			t.Errorf("want no action, got %v", f.summary(plan))
		}
		if diff := cmp.Diff([]string{"DuplicatePod Pod/web-01"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("above the range it is scaled down like any pod", func(t *testing.T) {
		plan := compute(f.input(with(f.pods(0, 1, 2), f.pod(5, testgen.Named("web-05")))))
		if diff := cmp.Diff([]string{"scale down: DeletePod web-05"}, f.summary(plan)); diff != "" {
			t.Errorf("steps mismatch (-want +got):\n%s", diff)
		}
	})
}

// A strategy type this controller does not implement (one a release after
// 1.37 might add) leaves pods alone, with a warning; scaling and status
// go on.
func TestUnknownUpdateStrategy(t *testing.T) {
	f := rollout(testgen.Replicas(3), testgen.NoRollingUpdate(), func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy.Type = "BlueGreen"
	})
	plan := compute(f.input(f.pods(0, 1)))
	if diff := cmp.Diff([]string{"replicas: CreatePod web-2 at update"}, f.summary(plan)); diff != "" {
		t.Errorf("steps mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"UnknownUpdateStrategy StatefulSet/web"}, warningReasons(plan)); diff != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", diff)
	}
	plan = compute(f.input(f.pods(0, 1, 2)))
	if len(plan.Steps) != 0 {
		t.Errorf("old-revision pods were touched: %v", f.summary(plan))
	}
	if plan.Status.Replicas != 3 || plan.Status.UpdateRevision != f.upd.Name {
		t.Errorf("status not computed: %+v", plan.Status)
	}
}

// The events each action records are upstream's.
func TestActionEvents(t *testing.T) {
	del, retain := appsv1.DeletePersistentVolumeClaimRetentionPolicyType, appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	f := steady(testgen.Replicas(2), testgen.ClaimTemplates("data"), testgen.Retention(del, retain))
	claims := []*corev1.PersistentVolumeClaim{testgen.Claim(f.set, "data", 0), testgen.Claim(f.set, "data", 1)}
	t.Run("a retention fix of a running pod's claims is reported as one pod update", func(t *testing.T) {
		plan := compute(f.input(f.pods(0, 1), claims...))
		want := []string{
			"UpdateClaim data-web-0 success=SuccessfulUpdate fail=FailedUpdate",
			"UpdateClaim data-web-1 success=SuccessfulUpdate fail=FailedUpdate",
		}
		if diff := cmp.Diff(want, eventsOf(plan)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a created pod reports its create; its claims report their own", func(t *testing.T) {
		plan := compute(f.input(nil))
		want := []string{
			"CreateClaim data-web-0 success=SuccessfulCreate fail=FailedCreate",
			"CreatePod web-0 success=SuccessfulCreate fail=FailedCreate",
		}
		if diff := cmp.Diff(want, eventsOf(plan)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a claim restored under a pending pod fails without a pod event", func(t *testing.T) {
		plan := compute(f.input([]*corev1.Pod{f.pod(0, testgen.Pending())}, claims[1]))
		if diff := cmp.Diff([]string{"CreateClaim data-web-0 success=SuccessfulCreate fail="}, eventsOf(plan)); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
	})
}

func eventsOf(plan planner.Plan) []string {
	var out []string
	for _, step := range plan.Steps {
		for _, a := range step.Actions {
			name := ""
			switch {
			case a.Claim != nil:
				name = a.Claim.Name
			case a.Pod != nil:
				name = a.Pod.Name
			}
			out = append(out, string(a.Kind)+" "+name+" success="+a.EventReason+" fail="+a.FailEvent)
		}
	}
	return out
}
