package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// volume defaults one pod volume: a volume with no source is an emptyDir,
// and each source type gets its own defaults.
func volume(v *corev1.Volume) {
	src := &v.VolumeSource
	if !hasSource(src) {
		src.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = pullPolicy(src.Image.Reference)
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
	fileSources(src)
	pluginSources(src)
	if src.Ephemeral != nil && src.Ephemeral.VolumeClaimTemplate != nil {
		claimSpec(&src.Ephemeral.VolumeClaimTemplate.Spec)
	}
}

// hasSource reports whether src sets any source. The common sources are
// looked at first, so that the reflective look at all of them (which stays
// right when the API adds a source) runs only for the rare volume that has
// none of these.
func hasSource(src *corev1.VolumeSource) bool {
	return src.EmptyDir != nil || src.ConfigMap != nil || src.Secret != nil || src.PersistentVolumeClaim != nil ||
		src.Projected != nil || src.HostPath != nil || src.DownwardAPI != nil || !ptr.AllPtrFieldsNil(src)
}

// fileSources defaults the sources that project API objects into files:
// mode 0644 for secret, configMap, downwardAPI and projected volumes, v1
// field references, and a one-hour service account token.
func fileSources(src *corev1.VolumeSource) {
	if src.Secret != nil && src.Secret.DefaultMode == nil {
		src.Secret.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	}
	if src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil {
		src.ConfigMap.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if src.DownwardAPI != nil {
		if src.DownwardAPI.DefaultMode == nil {
			src.DownwardAPI.DefaultMode = ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		downwardAPIItems(src.DownwardAPI.Items)
	}
	if src.Projected != nil {
		projected(src.Projected)
	}
}

// projected defaults a projected volume and each of its sources.
func projected(p *corev1.ProjectedVolumeSource) {
	if p.DefaultMode == nil {
		p.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
	}
	for i := range p.Sources {
		s := &p.Sources[i]
		if s.DownwardAPI != nil {
			downwardAPIItems(s.DownwardAPI.Items)
		}
		if s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds == nil {
			s.ServiceAccountToken.ExpirationSeconds = ptr.To[int64](60 * 60)
		}
	}
}

// downwardAPIItems defaults the field references of downward API files.
func downwardAPIItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		fieldRef(items[i].FieldRef)
	}
}

// pluginSources defaults the in-tree storage plugins that declare defaults:
// iSCSI, Ceph RBD, Azure Disk and ScaleIO.
func pluginSources(src *corev1.VolumeSource) {
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if src.RBD != nil {
		rbd(src.RBD)
	}
	if src.AzureDisk != nil {
		azureDisk(src.AzureDisk)
	}
	if src.ScaleIO != nil {
		if src.ScaleIO.StorageMode == "" {
			src.ScaleIO.StorageMode = "ThinProvisioned"
		}
		if src.ScaleIO.FSType == "" {
			src.ScaleIO.FSType = "xfs"
		}
	}
}

// rbd defaults a Ceph RBD volume to pool "rbd" as user "admin" with the
// standard keyring.
func rbd(r *corev1.RBDVolumeSource) {
	if r.RBDPool == "" {
		r.RBDPool = "rbd"
	}
	if r.RadosUser == "" {
		r.RadosUser = "admin"
	}
	if r.Keyring == "" {
		r.Keyring = "/etc/ceph/keyring"
	}
}

// azureDisk defaults an Azure disk to a writable, read-write cached, ext4,
// shared-blob disk.
func azureDisk(d *corev1.AzureDiskVolumeSource) {
	if d.CachingMode == nil {
		d.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
	}
	if d.FSType == nil {
		d.FSType = ptr.To("ext4")
	}
	if d.ReadOnly == nil {
		d.ReadOnly = ptr.To(false)
	}
	if d.Kind == nil {
		d.Kind = ptr.To(corev1.AzureSharedBlobDisk)
	}
}
