package revision

import (
	"bytes"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Options says what a revision holds beyond the pod template.
type Options struct {
	// Claims adds spec.volumeClaimTemplates: an extended set whose claims
	// follow its templates in place (volumeClaimUpdateStrategy InPlace)
	// needs each revision's templates to bring claims to it and to restore
	// them on undo.
	Claims bool
	// Overrides are the extended set's spec.overrides; a revision holds
	// them when there are any (overrides.go), and a set without them has
	// the revisions it would have had before overrides existed.
	Overrides []v1alpha1.OrdinalOverride
}

// claimTemplates is what a revision keeps of each volumeClaimTemplate: its
// name, labels and annotations, which a claim update carries over, and its
// whole spec (size, volumeAttributesClassName, and the rest, which undo
// restores). Other metadata and the status are not part of a template's
// meaning and would only make equal templates hash differently. The list
// is never nil, so that restoring a revision of a set without templates
// clears them.
func claimTemplates(in []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
	out := make([]corev1.PersistentVolumeClaim, 0, len(in))
	for _, t := range in {
		out = append(out, corev1.PersistentVolumeClaim{
			ObjectMeta: metaOf(t),
			Spec:       *t.Spec.DeepCopy(),
		})
	}
	return out
}

func metaOf(t corev1.PersistentVolumeClaim) (m metav1.ObjectMeta) {
	m.Name, m.Labels, m.Annotations = t.Name, t.Labels, t.Annotations
	return m
}

// HasClaims reports whether rev holds volumeClaimTemplates (it was made
// with Options.Claims).
func HasClaims(rev *appsv1.ControllerRevision) bool {
	if rev == nil || !bytes.Contains(rev.Data.Raw, []byte(`"volumeClaimTemplates"`)) {
		return false
	}
	var data struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(rev.Data.Raw, &data) != nil {
		return false
	}
	_, ok := data.Spec["volumeClaimTemplates"]
	return ok
}
