package planner_test

import (
	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// A gate that refuses a pod must leave what the other gates count as it
// was: a pod its domain refuses costs the quorum nothing, so the quorum's
// disruptions go to the pods the domain admits.
func TestAPodItsDomainRefusesSpendsNoQuorum(t *testing.T) {
	f := rollout(testgen.Replicas(6), testgen.Parallel(), testgen.MaxUnavailable(6))
	e := database(func(e *planner.Extended) {
		e.Topology = &planner.Topology{Key: "topology.kubernetes.io/zone", MaxUnavailablePerDomain: 2}
		observedOf(e).Domains = zoneNodes
	})
	var pods []*corev1.Pod
	for ord := range int32(6) {
		pods = append(pods, f.pod(ord, zoneOf(ord), follower))
	}
	// Six members, a majority of four: two may go, and domain a (web-0,
	// web-3) goes first with a budget of two. web-5 and web-4, asked
	// first, are in domains that wait.
	plan := f.ext(e, pods...)
	runPriority(t, []priorityScenario{{
		name:  "both pods of the first domain go",
		f:     f,
		e:     e,
		pods:  pods,
		steps: []string{"rolling update: DeletePod web-3", "rolling update: DeletePod web-0"},
	}})
	if got := policies(plan); strings.Contains(got, "quorum:") {
		t.Errorf("the quorum waits although two of its members may go:\n%s", got)
	}
}

// Every gate applies to every update policy: an InPlace claim update
// takes its pods domain by domain as a recreating one does.
func TestAnInPlaceClaimUpdateGoesDomainByDomain(t *testing.T) {
	grow := claimsInPlaceRollout(size("2Gi"), testgen.Parallel(), testgen.MaxUnavailable(3))
	e := claimsInPlace(true, func(e *planner.Extended) {
		e.Topology = &planner.Topology{Key: "topology.kubernetes.io/zone", MaxUnavailablePerDomain: 1, Order: []string{"b"}}
		observedOf(e).Domains = zoneNodes
	})
	// web-0 in a, web-1 in b, web-2 in c; b goes first.
	pods := []*corev1.Pod{grow.pod(0, zoneOf(0)), grow.pod(1, zoneOf(1)), grow.pod(2, zoneOf(2))}
	plan := grow.plan(e, pods, grow.claims(nil))
	if diff := cmp.Diff([]string{"rolling update: UpdateClaimStorage www-web-1 storage=2Gi revision=update"}, grow.storageLines(plan)); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}

	t.Run("a resize under way holds its domain's slot", func(t *testing.T) {
		resizing := []testgen.ClaimOption{requesting("2Gi"), bound("1Gi", grow.upd), claimStatus(func(s *corev1.PersistentVolumeClaimStatus) {
			s.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimControllerResizeInProgress}
		})}
		plan := grow.plan(e, pods, grow.claims(map[int32][]testgen.ClaimOption{1: resizing}))
		if got := grow.storageLines(plan); len(got) != 0 {
			t.Errorf("a pod of a later domain was touched while b resizes: %v", got)
		}
	})

	t.Run("without the nodes' labels the update holds", func(t *testing.T) {
		blind := claimsInPlace(true, func(e *planner.Extended) {
			e.Topology = &planner.Topology{Key: "topology.kubernetes.io/zone", MaxUnavailablePerDomain: 1}
		})
		plan := grow.plan(blind, pods, grow.claims(nil))
		if got := grow.storageLines(plan); len(got) != 0 || !strings.Contains(strings.Join(warningReasons(plan), " "), planner.ReasonTopologyUnknown) {
			t.Errorf("actions %v, warnings %v; want none and %s", got, warningReasons(plan), planner.ReasonTopologyUnknown)
		}
	})
}

// Every gate applies to every disruption: a requested delete is not a
// rollout step, so it may take a pod of any domain, but only one whose
// domain has room, and the plan says which domain it waits for.
func TestARequestedDeleteWaitsForItsDomainsRoom(t *testing.T) {
	f := steady(testgen.Replicas(6), testgen.Parallel(), testgen.MaxUnavailable(3))
	// Six pods, two per zone: a {0, 3}, b {1, 4}, c {2, 5}. web-1 in b is
	// down; web-4 (b) and web-5 (c) ask to be replaced.
	pods := with(zonedPods(f, 0, 2, 3), f.pod(1, zoneOf(1), testgen.NotReady(now)),
		f.pod(4, zoneOf(4), requested), f.pod(5, zoneOf(5), requested))
	plan := f.ext(zoned(1), pods...)
	if diff := cmp.Diff([]string{"delete requested: DeletePod web-5"}, f.summary(plan)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	want := "apps.ordinal.dev/delete-requested=true asks for web-4 to be replaced; its domain b has maxUnavailablePerDomain 1 unavailable"
	if got := policies(plan); !strings.Contains(got, want) {
		t.Errorf("the plan does not say why web-4 waits (%q):\n%s", want, got)
	}
	// Without topology the budget alone decides: both go.
	plan = f.ext(extended(), pods...)
	if diff := cmp.Diff([]string{"delete requested: DeletePod web-5", "delete requested: DeletePod web-4"}, f.summary(plan)); diff != "" {
		t.Errorf("without topology, steps (-want +got):\n%s", diff)
	}
}
