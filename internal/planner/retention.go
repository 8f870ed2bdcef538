package planner

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

const (
	retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	remove = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
)

// owners is who a claim's retention references are about: the set and the
// pod at the claim's ordinal (whose UID is empty while it is not created).
type owners struct {
	set       *appsv1.StatefulSet
	kind      schema.GroupVersionKind // the set's kind
	pod       *corev1.Pod
	condemned bool // the pod is outside the ordinal range (scaled down)
}

// policy returns the retention policy, Retain/Retain when unset. Values
// other than Retain and Delete are treated as Retain, as upstream does.
func policy(set *appsv1.StatefulSet) (whenDeleted, whenScaled bool) {
	p := set.Spec.PersistentVolumeClaimRetentionPolicy
	if p == nil {
		return false, false
	}
	return p.WhenDeleted == remove, p.WhenScaled == remove
}

// wantRefs says which controller references the retention policy wants on
// the claim, as upstream's updateClaimOwnerRefForSetAndPod sets them: the
// set owns in-range claims when whenDeleted is Delete, the pod owns
// condemned claims when whenScaled is Delete. When both are Delete, a
// condemned claim moves from the set to the pod.
func (o owners) wantRefs() (setRef, podRef bool) {
	whenDeleted, whenScaled := policy(o.set)
	podRef = whenScaled && o.condemned
	setRef = whenDeleted && !podRef
	return setRef, podRef
}

// claimUpToDate reports whether the claim's owner references already match
// the policy, or must be left alone. A reference to an earlier set or pod of
// the same name (a stale UID) is left for the garbage collector; a claim
// controlled by someone else only needs our references scrubbed.
func (o owners) claimUpToDate(claim *corev1.PersistentVolumeClaim) bool {
	if hasStaleRef(claim, o.set, o.kind) || hasStaleRef(claim, o.pod, podKind) {
		return true
	}
	hasSet, hasPod := hasUID(claim, o.set.UID), hasUID(claim, o.pod.UID)
	if o.foreignController(claim) {
		return !hasSet && !hasPod
	}
	if o.hasNonControllerRef(claim) {
		return false
	}
	setRef, podRef := o.wantRefs()
	return hasSet == setRef && hasPod == podRef
}

// fixedClaim returns a copy of claim whose references to this set and pod
// are removed and then re-added as the policy wants (scrub and re-add, so a
// non-controller reference becomes a controller one).
func (o owners) fixedClaim(claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	fixed := claim.DeepCopy()
	foreign := o.foreignController(claim)
	refs := make([]metav1.OwnerReference, 0, len(claim.OwnerReferences)+1)
	for _, ref := range claim.OwnerReferences {
		if !matchesRef(ref, o.set.Name, o.kind) && !matchesRef(ref, o.pod.Name, podKind) {
			refs = append(refs, ref)
		}
	}
	if !foreign {
		setRef, podRef := o.wantRefs()
		if setRef {
			refs = append(refs, *metav1.NewControllerRef(o.set, o.kind))
		}
		if podRef {
			refs = append(refs, *metav1.NewControllerRef(o.pod, podKind))
		}
	}
	fixed.OwnerReferences = refs
	return fixed
}

// foreignController reports a claim some other controller manages, which
// the retention policy must not fight over. Under Retain/Retain nothing is
// ours to set, so nothing is foreign.
func (o owners) foreignController(claim *corev1.PersistentVolumeClaim) bool {
	if whenDeleted, whenScaled := policy(o.set); !whenDeleted && !whenScaled {
		return false
	}
	for _, ref := range claim.OwnerReferences {
		switch {
		case matchesRef(ref, o.set.Name, o.kind):
			if ref.UID != o.set.UID {
				return true
			}
		case matchesRef(ref, o.pod.Name, podKind):
			if ref.UID != o.pod.UID {
				return true
			}
		case ref.Controller != nil && *ref.Controller:
			return true
		}
	}
	return false
}

func (o owners) hasNonControllerRef(claim *corev1.PersistentVolumeClaim) bool {
	for _, ref := range claim.OwnerReferences {
		if (ref.UID == o.set.UID || ref.UID == o.pod.UID) && (ref.Controller == nil || !*ref.Controller) {
			return true
		}
	}
	return false
}

// hasStaleRef reports whether the first reference naming obj's kind and name
// carries another UID: the claim belongs to an earlier object of that name.
func hasStaleRef(claim *corev1.PersistentVolumeClaim, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	for _, ref := range claim.OwnerReferences {
		if matchesRef(ref, obj.GetName(), gvk) {
			return ref.UID != obj.GetUID()
		}
	}
	return false
}

func hasUID(claim *corev1.PersistentVolumeClaim, uid types.UID) bool {
	for _, ref := range claim.OwnerReferences {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

func matchesRef(ref metav1.OwnerReference, name string, gvk schema.GroupVersionKind) bool {
	return ref.APIVersion == gvk.GroupVersion().String() && ref.Kind == gvk.Kind && ref.Name == name
}

// claimIsStale is upstream's PodClaimIsStale gate: under whenScaled
// Delete, a claim still owned by an earlier pod of the same name is about to
// be garbage-collected, and creating the pod now would bind it to a claim
// that then disappears.
func claimIsStale(set *appsv1.StatefulSet, pod *corev1.Pod, ordinal int32, claims map[string]*corev1.PersistentVolumeClaim) (string, bool) {
	if _, whenScaled := policy(set); !whenScaled {
		return "", false
	}
	for i := range set.Spec.VolumeClaimTemplates {
		t := &set.Spec.VolumeClaimTemplates[i]
		if claim := claimAt(claims, t.Name, set.Name, ordinal); claim != nil && hasStaleRef(claim, pod, podKind) {
			return ClaimName(t.Name, set.Name, ordinal), true
		}
	}
	return "", false
}
