package planner_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

const (
	retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	del    = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
)

// scaledDown is a set with one replica and claim template "data" that still
// has web-1, so web-1 is condemned.
func scaledDown(whenDeleted, whenScaled appsv1.PersistentVolumeClaimRetentionPolicyType, opts ...testgen.SetOption) fixture {
	return steady(append([]testgen.SetOption{testgen.Replicas(1), testgen.ClaimTemplates("data"), testgen.Retention(whenDeleted, whenScaled)}, opts...)...)
}

func TestRetentionPolicies(t *testing.T) {
	rr, rd, dr, dd := scaledDown(retain, retain), scaledDown(del, retain), scaledDown(retain, del), scaledDown(del, del)
	claims := func(f fixture, opts ...testgen.ClaimOption) []*corev1.PersistentVolumeClaim {
		return []*corev1.PersistentVolumeClaim{testgen.Claim(f.set, "data", 0, opts...), testgen.Claim(f.set, "data", 1, opts...)}
	}
	runScenarios(t, []scenario{{
		name: "Retain/Retain sets no references", f: rr, pods: rr.pods(0, 1), claims: claims(rr),
		steps: []string{"scale down: DeletePod web-1"},
	}, {
		name: "whenDeleted Delete makes the set own every claim, condemned or not", f: rd, pods: rd.pods(0, 1), claims: claims(rd),
		steps: []string{
			"replicas: UpdateClaim data-web-0 owners=[StatefulSet/web]",
			"claim retention: UpdateClaim data-web-1 owners=[StatefulSet/web]",
			"scale down: DeletePod web-1",
		},
	}, {
		name: "whenScaled Delete makes a condemned pod own its claim before it is deleted", f: dr, pods: dr.pods(0, 1), claims: claims(dr),
		steps: []string{"claim retention: UpdateClaim data-web-1 owners=[Pod/web-1]", "scale down: DeletePod web-1"},
	}, {
		name: "Delete/Delete moves a condemned claim from the set to its pod", f: dd, pods: dd.pods(0, 1), claims: claims(dd, testgen.OwnedBySet(dd.set)),
		steps: []string{"claim retention: UpdateClaim data-web-1 owners=[Pod/web-1]", "scale down: DeletePod web-1"},
	}, {
		name: "Retain/Retain scrubs references an earlier Delete policy left", f: rr, pods: rr.pods(0, 1), claims: claims(rr, testgen.OwnedBySet(rr.set)),
		steps: []string{
			"replicas: UpdateClaim data-web-0 owners=[]",
			"claim retention: UpdateClaim data-web-1 owners=[]",
			"scale down: DeletePod web-1",
		},
	}, {
		name: "a reference to an earlier set of the same name is left alone", f: rd, pods: rd.pods(0),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(rd.set, "data", 0, testgen.OwnerRef(testgen.ControllerRef("apps/v1", "StatefulSet", "web", "uid-old-web")))},
	}, {
		name: "a non-controller reference from the set is re-added as a controller reference", f: rd, pods: rd.pods(0),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(rd.set, "data", 0, testgen.OwnerRef(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: rd.set.UID}))},
		steps:  []string{"replicas: UpdateClaim data-web-0 owners=[StatefulSet/web]"},
	}, {
		name: "a claim another controller owns loses this set's references", f: rd, pods: rd.pods(0),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(rd.set, "data", 0,
			testgen.OwnerRef(testgen.ControllerRef("example.com/v1", "Backup", "nightly", "uid-backup")),
			testgen.OwnerRef(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: rd.set.UID}))},
		steps: []string{"replicas: UpdateClaim data-web-0 owners=[Backup/nightly]"},
	}, {
		name: "a claim another controller owns without our references is left alone", f: rd, pods: rd.pods(0),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(rd.set, "data", 0, testgen.OwnerRef(testgen.ControllerRef("example.com/v1", "Backup", "nightly", "uid-backup")))},
	}})
}

func TestRetentionDetails(t *testing.T) {
	t.Run("the references added are controller references with the owner's UID", func(t *testing.T) {
		f := scaledDown(retain, del)
		plan := planner.Compute(f.input(f.pods(0, 1), testgen.Claim(f.set, "data", 1)))
		want := []metav1.OwnerReference{testgen.ControllerRef("v1", "Pod", "web-1", "uid-web-1")}
		if diff := cmp.Diff(want, plan.Steps[0].Actions[0].Claim.OwnerReferences); diff != "" {
			t.Errorf("owner references mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a foreign controller is reported once, as ConflictingController", func(t *testing.T) {
		f := scaledDown(del, retain)
		claim := testgen.Claim(f.set, "data", 0,
			testgen.OwnerRef(testgen.ControllerRef("example.com/v1", "Backup", "nightly", "uid-backup")),
			testgen.OwnerRef(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: f.set.UID}))
		plan := planner.Compute(f.input(f.pods(0), claim))
		if diff := cmp.Diff([]string{"ConflictingController PersistentVolumeClaim/data-web-0"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a foreign controller is reported in upstream's words when the pod is created", func(t *testing.T) {
		f := scaledDown(del, retain)
		claim := testgen.Claim(f.set, "data", 0, testgen.OwnerRef(testgen.ControllerRef("example.com/v1", "Backup", "nightly", "uid-backup")))
		plan := planner.Compute(f.input(nil, claim))
		if diff := cmp.Diff([]string{"ConflictingController PersistentVolumeClaim/data-web-0"}, warningReasons(plan)); diff != "" {
			t.Errorf("warnings mismatch (-want +got):\n%s", diff)
		}
		want := "PersistentVolumeClaim data-web-0 has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim"
		if len(plan.Warnings) == 1 && plan.Warnings[0].Event != want {
			t.Errorf("event text %q, want upstream's %q", plan.Warnings[0].Event, want)
		}
		if diff := cmp.Diff([]string{"replicas: CreatePod web-0 at current"}, f.summary(plan)); diff != "" {
			t.Errorf("steps mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a foreign controller on a running pod's claim with nothing to scrub is not reported, as upstream does not", func(t *testing.T) {
		f := scaledDown(del, retain)
		claim := testgen.Claim(f.set, "data", 0, testgen.OwnerRef(testgen.ControllerRef("example.com/v1", "Backup", "nightly", "uid-backup")))
		plan := planner.Compute(f.input(f.pods(0), claim))
		if len(plan.Warnings) != 0 || len(plan.Steps) != 0 {
			t.Errorf("want no warnings and no actions, got %+v and %+v", plan.Warnings, plan.Steps)
		}
	})
	t.Run("the observed claim is never modified", func(t *testing.T) {
		f := scaledDown(del, del)
		claim := testgen.Claim(f.set, "data", 1, testgen.OwnedBySet(f.set))
		before := claim.DeepCopy()
		planner.Compute(f.input(f.pods(0, 1), claim))
		if diff := cmp.Diff(before, claim); diff != "" {
			t.Errorf("Compute() modified its input claim (-before +after):\n%s", diff)
		}
	})
}

func TestClaimsGatePods(t *testing.T) {
	stale := scaledDown(retain, del, testgen.Replicas(2))
	kept := scaledDown(retain, retain, testgen.Replicas(2))
	oldPod := testgen.OwnerRef(testgen.ControllerRef("v1", "Pod", "web-1", "uid-earlier-web-1"))
	par := scaledDown(retain, retain, testgen.Replicas(3), testgen.Parallel())
	two := steady(testgen.Replicas(1), testgen.ClaimTemplates("data", "logs"), testgen.Retention(del, retain))
	twoPar := steady(testgen.Replicas(1), testgen.ClaimTemplates("data", "logs"), testgen.Parallel())
	runScenarios(t, []scenario{{
		name: "under whenScaled Delete a claim still owned by an earlier pod blocks its creation", f: stale,
		pods: stale.pods(0), claims: []*corev1.PersistentVolumeClaim{testgen.Claim(stale.set, "data", 1, oldPod)},
		waits: []string{"web-1: Missing"},
	}, {
		name: "under whenScaled Retain the same claim is simply reused", f: kept,
		pods: kept.pods(0), claims: []*corev1.PersistentVolumeClaim{testgen.Claim(kept.set, "data", 1, oldPod)},
		steps: []string{"replicas: CreatePod web-1 at current"},
	}, {
		name: "a claim being deleted fails its pod's create and every later pass", f: kept,
		pods:   kept.pods(0, 2),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(kept.set, "data", 1, testgen.ClaimDeleting(now))},
		steps:  []string{"replicas: Fail web-1: pvc data-web-1 is being deleted"},
		waits:  []string{"web-1: Missing"},
	}, {
		name: "under Parallel a claim being deleted fails its pod; its batch still runs, later batches do not, and scale-down went first", f: par,
		pods:   par.pods(0, 3),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(par.set, "data", 1, testgen.ClaimDeleting(now))},
		steps: []string{
			"scale down*1: DeletePod web-3",
			"replicas*2: Fail web-1: pvc data-web-1 is being deleted",
			"replicas*2: CreateClaim data-web-2", "replicas*2: CreatePod web-2 at current",
		},
		waits: []string{"web-1: Missing"},
	}, {
		name: "under Parallel a claim being deleted under the first pod stops every other pod, after scale-down", f: par,
		pods:   par.pods(3),
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(par.set, "data", 0, testgen.ClaimDeleting(now))},
		steps:  []string{"scale down*1: DeletePod web-3", "replicas*1: Fail web-0: pvc data-web-0 is being deleted"},
		waits:  []string{"web-0: Missing"},
	}, {
		name: "a claim being deleted does not keep the pod's other missing claims from being created", f: twoPar,
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(twoPar.set, "data", 0, testgen.ClaimDeleting(now))},
		steps:  []string{"replicas*1: CreateClaim logs-web-0", "replicas*1: Fail web-0: pvc data-web-0 is being deleted"},
		waits:  []string{"web-0: Missing"},
	}, {
		name: "a pending pod gets back a claim deleted from under it", f: kept,
		pods:  []*corev1.Pod{kept.pod(0, testgen.Pending())},
		steps: []string{"replicas: CreateClaim data-web-0"},
		waits: []string{"web-0: Pending"},
	}, {
		name: "a new pod's missing claims come first and existing ones get their references after", f: two,
		claims: []*corev1.PersistentVolumeClaim{testgen.Claim(two.set, "logs", 0)},
		steps: []string{
			"replicas: CreateClaim data-web-0",
			"replicas: CreatePod web-0 at current",
			"replicas: UpdateClaim logs-web-0 owners=[StatefulSet/web]",
		},
	}})
}
