package planner_test

import (
	"math"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// mangle breaks an input in ways validation or defaulting normally rule
// out, so the fuzzer also covers objects the API server would never return:
// nil pointers, negative or huge numbers, unknown enum values, nil entries.
func mangle(c chooser, in planner.Input) planner.Input {
	set := in.Set.DeepCopy()
	spec := &set.Spec
	breakers := []func(){
		func() { spec.Replicas = nil },
		func() { spec.Replicas = ptr.To[int32](-3) },
		func() { spec.Selector = nil },
		func() { spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: math.MaxInt32 - 1} },
		func() { spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: -4} },
		func() { spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{} },
		func() { spec.UpdateStrategy.Type = "Recreate" },
		func() { spec.UpdateStrategy.Type = "BlueGreen" },
		func() { in.Release = planner.Release{Minor: 36, Patch: 3, RecreateGateOff: true} },
		func() {
			spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](-2)}
		},
		func() { setMaxUnavailable(spec, intstr.FromString("lots")) },
		func() { setMaxUnavailable(spec, intstr.FromInt32(0)) },
		func() { setMaxUnavailable(spec, intstr.FromString("-50%")) },
		func() { spec.PersistentVolumeClaimRetentionPolicy = nil },
		func() {
			spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Maybe", WhenScaled: "Delete"}
		},
		func() { spec.MinReadySeconds = -10 },
		func() { spec.Template.Labels = nil },
		func() { set.Status.CurrentReplicas = math.MaxInt32 },
		func() { in.Pods = append(in.Pods, nil, testgen.Pod(set, 0, testgen.Named("web-2147483647"))) },
		func() { in.Pods = append(in.Pods, &corev1.Pod{}) },
		func() { in.Claims = nil },
		func() { in.Update = nil },
		func() { in.Current = nil },
		func() { in.Set = nil },
	}
	for n := c.intn(4); n > 0; n-- {
		breakers[c.intn(len(breakers))]()
	}
	if in.Set != nil {
		in.Set = set
	}
	return in
}

func setMaxUnavailable(spec *appsv1.StatefulSetSpec, v intstr.IntOrString) {
	if spec.UpdateStrategy.RollingUpdate == nil {
		spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
	}
	spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
}
