package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func TestStatefulSetDefaultsVolumes(t *testing.T) {
	mode := ptr.To[int32](0o644)
	v1Field := &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}
	bareField := &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}
	tests := []struct {
		name string
		in   corev1.VolumeSource
		want corev1.VolumeSource
	}{
		{"a volume without a source is an emptyDir",
			corev1.VolumeSource{}, corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{"a hostPath gets the unset type",
			corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}},
			corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptr.To(corev1.HostPathUnset)}}},
		{"a hostPath type is kept",
			corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptr.To(corev1.HostPathDirectory)}},
			corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptr.To(corev1.HostPathDirectory)}}},
		{"a secret's files are 0644",
			corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}},
			corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s", DefaultMode: mode}}},
		{"a config map's files are 0644",
			corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}},
			corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: mode}}},
		{"a given mode is kept",
			corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: ptr.To[int32](0o400)}},
			corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{DefaultMode: ptr.To[int32](0o400)}}},
		{"downward API files are 0644 and their field references are to v1",
			corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{Items: []corev1.DownwardAPIVolumeFile{{Path: "n", FieldRef: bareField}}}},
			corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{DefaultMode: mode,
				Items: []corev1.DownwardAPIVolumeFile{{Path: "n", FieldRef: v1Field}}}}},
		{"a projected volume is 0644, its field references to v1 and its token lasts an hour",
			corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "n", FieldRef: bareField}}}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{Secret: &corev1.SecretProjection{}},
			}}},
			corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: mode, Sources: []corev1.VolumeProjection{
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "n", FieldRef: v1Field}}}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3600)}},
				{Secret: &corev1.SecretProjection{}},
			}}}},
		{"an image volume's pull policy follows its tag",
			corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry.k8s.io/data:latest"}},
			corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry.k8s.io/data:latest", PullPolicy: corev1.PullAlways}}},
		{"an ephemeral volume's claim is a filesystem claim with rounded requests",
			corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: quantities("storage", "1500u")}}}}},
			corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: corev1.PersistentVolumeClaimSpec{VolumeMode: ptr.To(corev1.PersistentVolumeFilesystem),
					Resources: corev1.VolumeResourceRequirements{Requests: quantities("storage", "2m")}}}}}},
		{"an ephemeral volume without a claim template gets nothing",
			corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}},
			corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
		{"iSCSI uses the default interface",
			corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{}},
			corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{ISCSIInterface: "default"}}},
		{"Ceph RBD uses pool rbd as admin with the standard keyring",
			corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{}},
			corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{RBDPool: "rbd", RadosUser: "admin", Keyring: "/etc/ceph/keyring"}}},
		{"an Azure disk is a writable, read-write cached, ext4 shared disk",
			corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{}},
			corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{CachingMode: ptr.To(corev1.AzureDataDiskCachingReadWrite),
				FSType: ptr.To("ext4"), ReadOnly: ptr.To(false), Kind: ptr.To(corev1.AzureSharedBlobDisk)}}},
		{"ScaleIO is thin provisioned xfs",
			corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{}},
			corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{StorageMode: "ThinProvisioned", FSType: "xfs"}}},
		{"a source without defaults is left as it is",
			corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs", Path: "/"}},
			corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs", Path: "/"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := podWith(bareContainer())
			spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: tt.in}}
			got := defaulted(t, setWithPod(spec), Options{}).Spec.Template.Spec.Volumes[0]
			if diff := cmp.Diff(corev1.Volume{Name: "v", VolumeSource: tt.want}, got, byText); diff != "" {
				t.Errorf("volume (-want +got):\n%s", diff)
			}
		})
	}
}
