package controller

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// stripForCache keeps in the informer cache only what the controller reads.
// Sets and revisions lose their managed fields. Pods and claims, which a
// cluster has thousands of, are replaced by new objects holding only what
// the planner, ownership and the event handlers read, so nothing else they
// carried stays reachable: a pod becomes a podRecord (planner.TrimPod's
// fields), a claim a claimRecord (planner.TrimClaim's). Nodes and
// volumes, as many as the cluster has, become new objects with the fields
// the node-failure pass and topology read (newNodeRecord,
// newVolumeRecord).
//
// Contract: no code path writes a cached pod or claim back with an update;
// every pod and claim write is a create from the template or a merge patch
// of the fields it changes (see podcontrol.go, ownership.go).
func stripForCache(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		return newPodRecord(o), nil
	case *corev1.PersistentVolumeClaim:
		return newClaimRecord(o), nil
	case *corev1.Node:
		// The labels give a pod its topology domain (nodes.go); the Ready
		// condition and the taints say whether it is lost or fenced
		// (nodefailure.go).
		return newNodeRecord(o), nil
	case *corev1.PersistentVolume:
		// Its claim and the node it is pinned to (nodefailure.go).
		return newVolumeRecord(o), nil
	case *appsv1.StatefulSet, *appsv1.ControllerRevision:
		if acc, err := meta.Accessor(obj); err == nil {
			acc.SetManagedFields(nil)
		}
	}
	return obj, nil
}

var _ cache.TransformFunc = stripForCache

// newNodeRecord keeps of a node what the controller reads: its name,
// labels, deletion, taints and Ready condition.
func newNodeRecord(o *corev1.Node) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion, Labels: o.Labels,
		DeletionTimestamp: o.DeletionTimestamp}, Spec: corev1.NodeSpec{Taints: o.Spec.Taints}}
	for _, c := range o.Status.Conditions {
		if c.Type == corev1.NodeReady {
			n.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime}}
		}
	}
	return n
}

// newVolumeRecord keeps of a volume what the controller reads: its name,
// the claim it is bound to and its node affinity (osts.JudgeNodes,
// osts.PinnedNode).
func newVolumeRecord(o *corev1.PersistentVolume) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion, DeletionTimestamp: o.DeletionTimestamp},
		Spec:       corev1.PersistentVolumeSpec{ClaimRef: o.Spec.ClaimRef, NodeAffinity: o.Spec.NodeAffinity},
	}
}
