package chaos

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// pickExtended draws one of the run's extended sets; nil when it has none.
func (r *run) pickExtended() *chaosSet {
	var ext []*chaosSet
	for _, cs := range r.sets {
		if cs.extended {
			ext = append(ext, cs)
		}
	}
	if len(ext) == 0 {
		return nil
	}
	return ext[r.rng.Intn(len(ext))]
}

// reserve changes an extended set's reserved ordinals as a user choosing
// which pods go would: one time in three it lifts them all; otherwise it
// reserves one ordinal, or a range of two, below 5, and half of those
// times lowers replicas by one in the same write, which removes exactly
// that pod.
func (r *run) reserve(ctx context.Context) bool {
	cs := r.pickExtended()
	if cs == nil {
		return false
	}
	var list []intstr.IntOrString
	low := int32(r.rng.Intn(5))
	switch r.rng.Intn(3) {
	case 0:
	case 1:
		list = []intstr.IntOrString{intstr.FromInt32(low)}
	default:
		list = []intstr.IntOrString{intstr.FromString(fmt.Sprintf("%d-%d", low, low+1))}
	}
	lower := len(list) > 0 && r.rng.Intn(2) == 0
	return r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) {
		s.Spec.ReserveOrdinals = list
		if lower && *s.Spec.Replicas > 0 {
			*s.Spec.Replicas--
		}
		r.logf("reserve ordinals %v of %s, replicas %d", list, cs.name, *s.Spec.Replicas)
	}) == nil
}

// requestDelete labels a random pod of an extended set
// apps.ordinal.dev/delete-requested, asking the controller to replace it
// within the rollout budget.
func (r *run) requestDelete(ctx context.Context) bool {
	cs := r.pickExtended()
	if cs == nil {
		return false
	}
	p := r.randomPod(ctx)
	if p == nil {
		return false
	}
	if _, ok := parseOrdinal(cs.name, p.Name); !ok {
		return false
	}
	patch := fmt.Sprintf(`{"metadata":{"uid":%q,"labels":{%q:"true"}}}`, p.UID, v1alpha1.DeleteRequestedLabel)
	_, err := r.client.CoreV1().Pods(r.ns).Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	r.logf("request the delete of pod %s (%v)", p.Name, errWord(err))
	return err == nil
}

// expand grows an extended set's data template by 1Mi and, the first
// time, switches the set to InPlace claim updates, so the rolling update
// patches each pod's claim and waits for the resize within
// maxUnavailable. Storage never shrinks: the template only grows.
func (r *run) expand(ctx context.Context) bool {
	cs := r.pickExtended()
	if cs == nil {
		return false
	}
	return r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) {
		s.Spec.VolumeClaimUpdateStrategy.Type = v1alpha1.InPlaceVolumeClaimUpdateStrategyType
		req := s.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests
		size := req[corev1.ResourceStorage]
		size.Add(resource.MustParse("1Mi"))
		req[corev1.ResourceStorage] = size
		r.logf("expand %s's data claims to %s, InPlace", cs.name, size.String())
	}) == nil
}

// editOverrides changes an extended set's per-ordinal overrides as a user
// giving some members more would: one time in three it removes them all;
// otherwise it gives one ordinal below 4, or a range of two, a cpu request
// and a label in an override named big (replacing the last one), so that
// only those pods roll and the others move to the new revision in place.
func (r *run) editOverrides(ctx context.Context) bool {
	cs := r.pickExtended()
	if cs == nil {
		return false
	}
	var list []v1alpha1.OrdinalOverride
	if r.rng.Intn(3) != 0 {
		low := r.rng.Intn(4)
		ordinals := []intstr.IntOrString{intstr.FromInt32(int32(low))}
		if r.rng.Intn(2) == 0 {
			ordinals = []intstr.IntOrString{intstr.FromString(fmt.Sprintf("%d-%d", low, low+1))}
		}
		cpu := fmt.Sprintf("%dm", 10*(1+r.rng.Intn(5)))
		list = []v1alpha1.OrdinalOverride{{Name: "big", Ordinals: ordinals, Template: &v1alpha1.OverrideTemplate{
			Metadata: &v1alpha1.OverrideMetadata{Labels: map[string]string{"tier": "big"}},
			Spec: &v1alpha1.OverridePodSpec{Containers: []v1alpha1.ContainerOverride{{Name: "app",
				Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}}}
	}
	return r.mutateExtended(ctx, cs, func(s *v1alpha1.StatefulSet) {
		s.Spec.Overrides = list
		r.logf("overrides of %s: %s", cs.name, overrideWords(list))
	}) == nil
}

func overrideWords(list []v1alpha1.OrdinalOverride) string {
	if len(list) == 0 {
		return "none"
	}
	o := list[0]
	return fmt.Sprintf("%s at %s, cpu %s", o.Name, o.Ordinals[0].String(), o.Template.Spec.Containers[0].Resources.Requests.Cpu())
}
