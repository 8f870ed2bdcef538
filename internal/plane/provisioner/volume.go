package provisioner

import (
	"fmt"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// annProvisionedBy marks a volume as dynamically provisioned by the named
// provisioner; the PersistentVolume controller leaves deleting such a volume
// to that provisioner when the name is not one of its in-tree plugins.
const annProvisionedBy = "pv.kubernetes.io/provisioned-by"

// volumeName is the volume for a claim, named like upstream's provisioners
// name theirs: the claim's UID makes it unique and lets a retry find the
// volume an earlier attempt created.
func volumeName(claim *corev1.PersistentVolumeClaim) string {
	return "pvc-" + string(claim.UID)
}

// newVolume is the volume that answers claim: a hostPath directory at
// root/<volume name>, pre-bound to the claim through claimRef so that the
// PersistentVolume controller binds exactly this pair. host, when set, is
// the kubernetes.io/hostname label of the node the scheduler selected for
// the claim's first pod (pinHost): the volume is then a local volume,
// pinned to that host by node affinity, as local volume provisioners pin
// theirs, so a pod whose node is lost can start nowhere else while it keeps
// that claim. Without host every simulated node "mounts" every directory,
// as with network storage.
func newVolume(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, name, root, host string) *corev1.PersistentVolume {
	pv := hostPathVolume(claim, class, name, root)
	if host != "" {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{host}}},
		}}}}
	}
	return pv
}

// pinsToNode reports whether a volume of class for claim is a local one,
// and the name of the node the scheduler selected: a class that binds
// WaitForFirstConsumer, and a claim the scheduler has picked a node for.
func pinsToNode(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) (string, bool) {
	node := claim.Annotations[annSelectedNode]
	wffc := ptr.Deref(class.VolumeBindingMode, storagev1.VolumeBindingImmediate) == storagev1.VolumeBindingWaitForFirstConsumer
	return node, node != "" && wffc
}

// hostOf is the value a local volume on node is pinned by: its
// kubernetes.io/hostname label, which need not be its name (a node named
// by its DNS name carries its short hostname), or its name when it has
// no such label.
func hostOf(node *corev1.Node) string {
	if host := node.Labels[corev1.LabelHostname]; host != "" {
		return host
	}
	return node.Name
}

func hostPathVolume(claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass, name, root string) *corev1.PersistentVolume {
	pvName := volumeName(claim)
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{
			Name:        pvName,
			Annotations: map[string]string{annProvisionedBy: name},
		},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{
				corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage],
			},
			AccessModes: append([]corev1.PersistentVolumeAccessMode(nil), claim.Spec.AccessModes...),
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{
					Path: filepath.Join(root, pvName),
					Type: ptr.To(corev1.HostPathDirectoryOrCreate),
				},
			},
			ClaimRef: &corev1.ObjectReference{
				APIVersion: "v1",
				Kind:       "PersistentVolumeClaim",
				Namespace:  claim.Namespace,
				Name:       claim.Name,
				UID:        claim.UID,
			},
			PersistentVolumeReclaimPolicy: ptr.Deref(class.ReclaimPolicy, corev1.PersistentVolumeReclaimDelete),
			StorageClassName:              class.Name,
			VolumeMode:                    ptr.To(corev1.PersistentVolumeFilesystem),
			// No mount options: the API server rejects them on hostPath.
		},
	}
}

// volumeDirName checks that path is the directory we would have created for
// volume pvName, root/<pvName>, and returns its name relative to root. A
// deletion follows only paths that pass, so a volume edited or hand-made to
// point elsewhere, at root itself, or at another volume's directory can
// never make us remove it.
func volumeDirName(root, path, pvName string) (string, error) {
	clean := filepath.Clean(path)
	if !filepath.IsAbs(clean) {
		return "", fmt.Errorf("path %q is not absolute", path)
	}
	if filepath.Dir(clean) != root {
		return "", fmt.Errorf("path %q is not directly under volume root %q", path, root)
	}
	base := filepath.Base(clean)
	if base != pvName || !filepath.IsLocal(base) {
		return "", fmt.Errorf("path %q is not the directory of volume %q", path, pvName)
	}
	return base, nil
}
