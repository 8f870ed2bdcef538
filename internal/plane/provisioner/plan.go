package provisioner

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

// Annotations read on claims. The PersistentVolume controller writes both
// storage-provisioner spellings when it hands a claim to an out-of-tree
// provisioner; the scheduler writes selected-node for WaitForFirstConsumer
// classes once it has picked a node.
const (
	annStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	annSelectedNode           = "volume.kubernetes.io/selected-node"
)

// claimAction is what the provisioner does about one claim.
type claimAction int

const (
	// claimIgnore: not our claim, or nothing left to do for it.
	claimIgnore claimAction = iota
	// claimWait: our claim, but it cannot be served yet; a later change of
	// the claim or of a StorageClass requeues it.
	claimWait
	// claimReject: our claim, but no retry can serve it as it stands; it
	// gets a ProvisioningFailed event and is not retried until it changes.
	claimReject
	// claimProvision: create the directory and the volume.
	claimProvision
)

// claimPlan is planClaim's answer; reason says why, for logs and events.
type claimPlan struct {
	action claimAction
	class  *storagev1.StorageClass // set for claimProvision
	reason string
}

// planClaim decides what to do about claim, given every StorageClass and
// whether the volume named after the claim already exists. It is pure: the
// same inputs always give the same plan.
//
// A claim is ours when either signal names us, whichever arrives first: its
// volume.kubernetes.io/storage-provisioner annotation (the PersistentVolume
// controller's decision, written when it gives up finding a volume), or, while
// that annotation is absent, its class's provisioner. Acting on the class
// alone saves a round trip through the PersistentVolume controller and works
// without it; the controller binds a volume pre-bound to the claim whether or
// not it has annotated the claim yet. Once present, the annotation wins: it
// names the provisioner the controller is waiting for, even if the class was
// replaced since.
func planClaim(claim *corev1.PersistentVolumeClaim, classes []*storagev1.StorageClass, volumeExists bool, name string) claimPlan {
	if claim.DeletionTimestamp != nil {
		return claimPlan{action: claimIgnore, reason: "claim is being deleted"}
	}
	if claim.Spec.VolumeName != "" {
		return claimPlan{action: claimIgnore, reason: "claim is bound or asks for a specific volume"}
	}
	annotated := claimProvisioner(claim)
	if annotated != "" && annotated != name {
		return claimPlan{action: claimIgnore, reason: fmt.Sprintf("claim waits for provisioner %q", annotated)}
	}
	className := claimClassName(claim, classes)
	class := findClass(classes, className)
	if annotated == "" && (class == nil || class.Provisioner != name) {
		return claimPlan{action: claimIgnore, reason: fmt.Sprintf("storage class %q is not ours", className)}
	}
	if volumeExists {
		return claimPlan{action: claimIgnore, reason: "volume exists, binding is the PersistentVolume controller's"}
	}
	if class == nil {
		return claimPlan{action: claimWait, reason: fmt.Sprintf("storage class %q not found", className)}
	}
	if ptr.Deref(class.VolumeBindingMode, storagev1.VolumeBindingImmediate) == storagev1.VolumeBindingWaitForFirstConsumer &&
		claim.Annotations[annSelectedNode] == "" {
		return claimPlan{action: claimWait, reason: "waiting for the scheduler to select a node"}
	}
	if reason := unsupported(claim); reason != "" {
		return claimPlan{action: claimReject, reason: reason}
	}
	return claimPlan{action: claimProvision, class: class, reason: fmt.Sprintf("storage class %q", class.Name)}
}

// claimProvisioner returns the provisioner the PersistentVolume controller
// handed the claim to, or "".
func claimProvisioner(claim *corev1.PersistentVolumeClaim) string {
	if p := claim.Annotations[annStorageProvisioner]; p != "" {
		return p
	}
	return claim.Annotations[annBetaStorageProvisioner]
}

// unsupported says why a hostPath directory cannot honestly satisfy claim,
// or "". Serving such a claim with an empty directory would bind it to a
// volume that silently lacks what it asked for.
func unsupported(claim *corev1.PersistentVolumeClaim) string {
	spec := claim.Spec
	switch {
	case ptr.Deref(spec.VolumeMode, corev1.PersistentVolumeFilesystem) != corev1.PersistentVolumeFilesystem:
		return "hostPath volumes support only volumeMode Filesystem"
	case spec.DataSource != nil || spec.DataSourceRef != nil:
		return "hostPath volumes cannot be populated from a data source"
	case spec.Selector != nil:
		return "claims with a selector cannot be dynamically provisioned"
	case ptr.Deref(spec.VolumeAttributesClassName, "") != "":
		// The PersistentVolume controller binds a claim only to a volume of
		// the same class, and the API server allows the class on CSI
		// volumes only; a bound claim may still change class (modify.go).
		return "hostPath volumes cannot carry a volume attributes class, so a claim naming one could never bind; set volumeAttributesClassName once the claim is bound"
	}
	if _, ok := spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		return "claim has no storage request"
	}
	return ""
}

// volumeAction is what the provisioner does about one volume.
type volumeAction int

const (
	// volumeKeep: not ours, not released, or to be retained.
	volumeKeep volumeAction = iota
	// volumeDelete: remove the directory, then the volume.
	volumeDelete
	// volumeRefuse: ours and due for deletion, but its path is not one we
	// may remove; it gets a warning event and is not retried.
	volumeRefuse
)

// volumePlan is planVolume's answer. dir is the volume's directory relative
// to root, set for volumeDelete.
type volumePlan struct {
	action volumeAction
	dir    string
	reason string
}

// planVolume decides what to do about pv. Only volumes we provisioned, that
// the PersistentVolume controller has marked Released, and whose policy is
// Delete are deleted; a Bound volume's directory is never touched, so it
// survives any number of provisioner restarts.
func planVolume(pv *corev1.PersistentVolume, name, root string) volumePlan {
	if pv.Annotations[annProvisionedBy] != name {
		return volumePlan{action: volumeKeep, reason: "not provisioned by us"}
	}
	if pv.Status.Phase != corev1.VolumeReleased {
		return volumePlan{action: volumeKeep, reason: fmt.Sprintf("volume is %s", pv.Status.Phase)}
	}
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		return volumePlan{action: volumeKeep, reason: fmt.Sprintf("reclaim policy is %s", pv.Spec.PersistentVolumeReclaimPolicy)}
	}
	if pv.Spec.HostPath == nil {
		return volumePlan{action: volumeRefuse, reason: "volume has no hostPath"}
	}
	dir, err := volumeDirName(root, pv.Spec.HostPath.Path, pv.Name)
	if err != nil {
		return volumePlan{action: volumeRefuse, reason: err.Error()}
	}
	return volumePlan{action: volumeDelete, dir: dir, reason: "released with reclaim policy Delete"}
}
