package chaos

import (
	"fmt"
	"math/rand"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// The convergence check, fed hand-written objects: no plane.

// restingSet is apps/v1 set alpha with the given replicas, start ordinal
// and partition, whose status says it caught up at current revision
// "alpha-cur" and update revision "alpha-upd".
func restingSet(replicas, start, partition int32) *appsv1.StatefulSet {
	set := randomSet(rand.New(rand.NewSource(1)), "ns", "alpha")
	set.UID, set.Generation = "set-uid", 3
	set.Spec.Replicas = &replicas
	set.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: start}
	set.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: &partition}
	set.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	set.Status = appsv1.StatefulSetStatus{ObservedGeneration: 3, CurrentRevision: "alpha-cur", UpdateRevision: "alpha-upd"}
	return set
}

// readyPod is pod alpha-<ord>, Running and Ready at revision rev.
func readyPod(ord int32, rev string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("alpha-%d", ord), Namespace: "ns",
			Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: rev}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

// boundClaim is claim data-alpha-<ord>, bound, with size as its capacity.
func boundClaim(ord int32, size string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("data-alpha-%d", ord), Namespace: "ns"},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound,
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	}
}

// podsAndClaims are a ready pod and a bound 1Mi claim per ordinal, each pod
// at the revision revOf gives its ordinal.
func podsAndClaims(ords []int32, revOf func(int32) string) ([]corev1.Pod, []corev1.PersistentVolumeClaim) {
	var pods []corev1.Pod
	var claims []corev1.PersistentVolumeClaim
	for _, ord := range ords {
		pods = append(pods, readyPod(ord, revOf(ord)))
		claims = append(claims, boundClaim(ord, "1Mi"))
	}
	return pods, claims
}

func TestSetNotConvergedReadsTheSpecsOrdinals(t *testing.T) {
	// Start 5, partition 1: ordinal 5 keeps the current revision, 6 and 7
	// get the update.
	split := func(ord int32) string {
		if ord < 6 {
			return "alpha-cur"
		}
		return "alpha-upd"
	}
	for _, tc := range []struct {
		name   string
		change func(pods *[]corev1.Pod, claims *[]corev1.PersistentVolumeClaim)
		want   string
	}{
		{"ordinals 5 to 7, the one below start plus partition at the current revision, have converged", nil, ""},
		{"a pod at or above start plus partition at the current revision has not", func(pods *[]corev1.Pod, _ *[]corev1.PersistentVolumeClaim) {
			(*pods)[1] = readyPod(6, "alpha-cur")
		}, "alpha-6 is at alpha-cur, want alpha-upd"},
		{"a missing pod has not", func(pods *[]corev1.Pod, _ *[]corev1.PersistentVolumeClaim) {
			*pods = (*pods)[:2]
		}, "alpha-7 is missing"},
		{"a pod at ordinal 0, below the start ordinal, is outside the set", func(pods *[]corev1.Pod, _ *[]corev1.PersistentVolumeClaim) {
			*pods = append(*pods, readyPod(0, "alpha-upd"))
		}, "alpha-0 is outside the set's ordinals and still exists"},
		{"an unbound claim has not", func(_ *[]corev1.Pod, claims *[]corev1.PersistentVolumeClaim) {
			(*claims)[2].Status.Phase = corev1.ClaimPending
		}, "claim data-alpha-7 is not bound"},
		{"a condemned claim its pod owns, under whenScaled Delete, has not", func(_ *[]corev1.Pod, claims *[]corev1.PersistentVolumeClaim) {
			c := boundClaim(8, "1Mi")
			c.OwnerReferences = []metav1.OwnerReference{{Kind: "Pod", Name: "alpha-8"}}
			*claims = append(*claims, c)
		}, "claim data-alpha-8 of a condemned ordinal is owned by its pod and still exists under whenScaled Delete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := restingSet(3, 5, 1)
			pods, claims := podsAndClaims([]int32{5, 6, 7}, split)
			if tc.change != nil {
				tc.change(&pods, &claims)
			}
			if got := setNotConverged(set, []int32{5, 6, 7}, pods, nil, claims); got != tc.want {
				t.Errorf("setNotConverged = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("an unbound claim at ordinal 20 has not converged", func(t *testing.T) {
		pods, claims := podsAndClaims([]int32{20}, func(int32) string { return "alpha-upd" })
		claims[0].Status.Phase = corev1.ClaimPending
		want := "claim data-alpha-20 is not bound"
		if got := setNotConverged(restingSet(1, 20, 0), []int32{20}, pods, nil, claims); got != want {
			t.Errorf("setNotConverged = %q, want %q", got, want)
		}
	})
}

// extendedResting is alpha as the extended kind: 3 replicas reserving
// ordinal 1 (so its ordinals are 0, 2 and 3), partition 2, InPlace claim
// updates with a 2Mi template.
func extendedResting() *v1alpha1.StatefulSet {
	view := restingSet(3, 0, 2)
	set := &v1alpha1.StatefulSet{ObjectMeta: view.ObjectMeta, Status: v1alpha1.StatefulSetStatus{
		ObservedGeneration: 3, CurrentRevision: "alpha-cur", UpdateRevision: "alpha-upd"}}
	set.Spec.Replicas = view.Spec.Replicas
	set.Spec.ReserveOrdinals = []intstr.IntOrString{intstr.FromInt32(1)}
	set.Spec.VolumeClaimTemplates = view.Spec.VolumeClaimTemplates
	set.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Mi")
	set.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
	set.Spec.PersistentVolumeClaimRetentionPolicy = &v1alpha1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
	set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &v1alpha1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	return set
}

func TestExtendedNotConvergedReadsReservedOrdinals(t *testing.T) {
	split := func(ord int32) string {
		if ord < 2 {
			return "alpha-cur"
		}
		return "alpha-upd"
	}
	for _, tc := range []struct {
		name   string
		change func(pods *[]corev1.Pod, claims *[]corev1.PersistentVolumeClaim)
		want   string
	}{
		{"pods at 0, 2 and 3 with the claims at and above the partition grown have converged", nil, ""},
		{"a pod at the reserved ordinal is outside the set", func(pods *[]corev1.Pod, _ *[]corev1.PersistentVolumeClaim) {
			*pods = append(*pods, readyPod(1, "alpha-cur"))
		}, "alpha-1 is outside the set's ordinals and still exists"},
		{"the ordinal past the reservation needs its pod", func(pods *[]corev1.Pod, _ *[]corev1.PersistentVolumeClaim) {
			*pods = (*pods)[:2]
		}, "alpha-3 is missing"},
		{"a claim at or above the partition not yet grown has not converged", func(_ *[]corev1.Pod, claims *[]corev1.PersistentVolumeClaim) {
			(*claims)[1] = boundClaim(2, "1Mi")
		}, "claim data-alpha-2 has 1Mi, not yet the template's 2Mi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pods, claims := podsAndClaims([]int32{0, 2, 3}, split)
			claims[1], claims[2] = boundClaim(2, "2Mi"), boundClaim(3, "2Mi")
			if tc.change != nil {
				tc.change(&pods, &claims)
			}
			if got := extendedNotConverged(extendedResting(), pods, nil, claims); got != tc.want {
				t.Errorf("extendedNotConverged = %q, want %q", got, tc.want)
			}
		})
	}
}
