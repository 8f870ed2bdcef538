package setops

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Replacement is `ordinal scale --replace`: the pods to label with
// v1alpha1.DeleteRequestedLabel, so that the controller deletes and
// recreates each within maxUnavailable.
type Replacement struct {
	// Pods are the pods to label, lowest ordinal first.
	Pods []*corev1.Pod
}

// NewReplacement checks that each ordinal holds a running pod of the
// extended set, not reserved, and returns the pods to label. pods are the
// pods the set controls.
func NewReplacement(set *v1alpha1.StatefulSet, pods []*corev1.Pod, ordinals []int32) (Replacement, error) {
	held, err := heldOrdinals(set, pods, ordinals)
	if err != nil {
		return Replacement{}, err
	}
	var r Replacement
	for _, ord := range ordinals {
		r.Pods = append(r.Pods, held[ord])
	}
	return r, nil
}

// LabelPatch is the JSON patch that labels pod: it first tests the pod's
// UID, so that a pod created again under the same name in between is not
// labelled in its place.
func LabelPatch(pod *corev1.Pod) []PatchOp {
	// A JSON pointer writes "/" inside a key as "~1".
	key := strings.ReplaceAll(v1alpha1.DeleteRequestedLabel, "/", "~1")
	ops := []PatchOp{{Op: "test", Path: "/metadata/uid", Value: string(pod.UID)}}
	if pod.Labels == nil {
		return append(ops, PatchOp{Op: "add", Path: "/metadata/labels", Value: map[string]string{v1alpha1.DeleteRequestedLabel: "true"}})
	}
	return append(ops, PatchOp{Op: "add", Path: "/metadata/labels/" + key, Value: "true"})
}
