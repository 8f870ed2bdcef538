// Package provisioner is the plane's in-process dynamic volume provisioner:
// it answers PersistentVolumeClaims of its StorageClass with hostPath
// PersistentVolumes, each backed by its own directory under one root
// (pinned to the selected node for a WaitForFirstConsumer class), and
// removes the directory and the volume again when a Delete-policy volume is
// released. There is no kubelet in the plane (pods run on simulated kwok
// nodes), so a volume is only a directory; kube-controller-manager's
// PersistentVolume binder does the binding.
//
// It plays the part of an out-of-tree ("external") provisioner in the
// protocol of kube-controller-manager's PersistentVolume controller: the
// controller annotates a claim whose class names a provisioner it does not
// know with volume.kubernetes.io/storage-provisioner and waits for a volume
// pre-bound to the claim (spec.claimRef) to appear; for a released volume
// whose pv.kubernetes.io/provisioned-by annotation names such a provisioner
// it does nothing and leaves deletion to that provisioner.
//
// For bound claims of its volumes it also plays the external resizer and
// the kubelet, and the external resizer's attributes modifier: a claim
// asking for more than its capacity, or for another VolumeAttributesClass,
// passes through the same status fields, conditions and events as on a
// real cluster (resize.go, modify.go), one status write per step.
// sim.ordinal.dev/resize* annotations on a claim rehearse slow, failing and
// infeasible storage (sim.go).
package provisioner
