package chaos

import (
	"encoding/json"
	"fmt"
	"math/rand"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// setNames never prefix one another, so pod names map to one set.
var setNames = []string{"alpha", "bravo", "charlie"}

func image(v int) string { return fmt.Sprintf("registry.k8s.io/nginx-slim:0.%d", v) }

// randomSet is a small set with a claim template and a random pod
// management policy, retention policy and minReadySeconds.
func randomSet(rng *rand.Rand, ns, name string) *appsv1.StatefulSet {
	replicas := int32(1 + rng.Intn(3))
	grace := int64(2)
	labels := map[string]string{"app": name}
	policy := appsv1.OrderedReadyPodManagement
	if rng.Intn(2) == 0 {
		policy = appsv1.ParallelPodManagement
	}
	retention := func() appsv1.PersistentVolumeClaimRetentionPolicyType {
		if rng.Intn(2) == 0 {
			return appsv1.DeletePersistentVolumeClaimRetentionPolicyType
		}
		return appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &replicas,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			ServiceName:         name,
			PodManagementPolicy: policy,
			MinReadySeconds:     int32(rng.Intn(2)),
			UpdateStrategy:      appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: retention(), WhenScaled: retention(),
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					Containers: []corev1.Container{{
						Name: "app", Image: image(8),
						Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
					}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Mi")}},
				},
			}},
		},
	}
	return set
}

func describe(set *appsv1.StatefulSet) string {
	p := set.Spec.PersistentVolumeClaimRetentionPolicy
	return fmt.Sprintf("%s(%s, replicas %d, minReady %d, whenScaled %s, whenDeleted %s)", set.Name, set.Spec.PodManagementPolicy,
		*set.Spec.Replicas, set.Spec.MinReadySeconds, p.WhenScaled, p.WhenDeleted)
}

// randomExtended is randomSet as the extended kind (the same manifest
// under the extended apiVersion), with a random failure policy, progress
// deadline and self-healing, half of the rolling ones with the primary
// last (randomPriority), half of them updating pods in place where they
// can, and on a quarter of them Recreate. With all, each feature it may
// give is given (a rolling update, self-healing, in place, hooks, roles,
// priority), from the same draws.
func randomExtended(rng *rand.Rand, ns, name string, all bool) *v1alpha1.StatefulSet {
	data, err := json.Marshal(randomSet(rng, ns, name))
	if err != nil {
		panic(err)
	}
	set := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(data, set); err != nil {
		panic(err)
	}
	deadline := []int32{15, 30, 600}[rng.Intn(3)]
	set.Spec.ProgressDeadlineSeconds = &deadline
	randomHooks(rng, set, all)
	if rng.Intn(4) == 0 && !all {
		set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RecreateStatefulSetStrategyType}
		return set
	}
	healing := v1alpha1.SelfHealingEnabled
	if rng.Intn(4) == 0 && !all {
		healing = v1alpha1.SelfHealingDisabled
	}
	// randomSet's maxUnavailable, if it chose one, stays.
	ru := &v1alpha1.RollingUpdateStatefulSetStrategy{}
	if set.Spec.UpdateStrategy.RollingUpdate != nil {
		ru.MaxUnavailable = set.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable
	}
	ru.SelfHealing = healing
	ru.OnFailure = []v1alpha1.FailurePolicy{v1alpha1.FailureReport, v1alpha1.FailurePause, v1alpha1.FailureRollback}[rng.Intn(3)]
	set.Spec.UpdateStrategy = v1alpha1.StatefulSetUpdateStrategy{Type: v1alpha1.RollingUpdateStatefulSetStrategyType, RollingUpdate: ru}
	randomPriority(rng, set.Spec.UpdateStrategy.RollingUpdate, all)
	if rng.Intn(2) == 0 || all {
		ru.PodUpdatePolicy = v1alpha1.PodUpdateInPlaceIfPossible
	}
	randomRoles(rng, set, all)
	return set
}

func describeExtended(set *v1alpha1.StatefulSet) string {
	p := set.Spec.PersistentVolumeClaimRetentionPolicy
	strategy := string(set.Spec.UpdateStrategy.Type)
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		strategy = fmt.Sprintf("%s, selfHealing %s, onFailure %s", strategy, ru.SelfHealing, ru.OnFailure)
		if ru.MaxUnavailable != nil {
			strategy += ", maxUnavailable " + ru.MaxUnavailable.String()
		}
		if len(ru.Priority) > 0 {
			strategy += ", primary last"
		}
		if ru.PodUpdatePolicy != "" {
			strategy += ", " + string(ru.PodUpdatePolicy)
		}
		strategy += describeTopology(ru)
	}
	return fmt.Sprintf("%s(extended, %s, replicas %d, minReady %d, %s, progressDeadline %ds, whenScaled %s, whenDeleted %s%s)", set.Name,
		set.Spec.PodManagementPolicy, *set.Spec.Replicas, set.Spec.MinReadySeconds, strategy, *set.Spec.ProgressDeadlineSeconds, p.WhenScaled, p.WhenDeleted,
		describeHooks(set.Spec.Lifecycle)+describeRoles(set)+describePolicy(set.Spec.NodeFailurePolicy))
}

// describePolicy names a node-failure policy the set was created with.
func describePolicy(p *v1alpha1.NodeFailurePolicy) string {
	if p == nil {
		return ""
	}
	return ", node-failure policy " + policyWords(p)
}
