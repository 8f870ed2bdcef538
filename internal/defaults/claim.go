package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// claimTemplate defaults a StatefulSet's volume claim template as the API
// server defaults a PersistentVolumeClaim, status included: the stored
// template carries phase Pending.
func claimTemplate(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
	claimSpec(&pvc.Spec)
	roundUp(pvc.Status.Capacity)
	roundUp(pvc.Status.AllocatedResources)
}

// claimSpec defaults a claim spec (of a claim template or of an ephemeral
// volume) to a filesystem volume and rounds its resources.
func claimSpec(spec *corev1.PersistentVolumeClaimSpec) {
	if spec.VolumeMode == nil {
		spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	roundUp(spec.Resources.Limits)
	roundUp(spec.Resources.Requests)
}

// milli is the finest scale the API server keeps in a resource quantity.
const milli = resource.Scale(-3)

// roundUp rounds every quantity in list up to a whole milli-unit (1.0001
// becomes 1.001), as the API server does with every resource list it
// defaults. The map holds copies, so a changed value is written back;
// rounding may change a quantity's representation (and drop its cached
// text) even when its value stays the same, which counts as a change.
func roundUp(list corev1.ResourceList) {
	for name, q := range list {
		before := q
		q.RoundUp(milli)
		if q != before {
			list[name] = q
		}
	}
}
