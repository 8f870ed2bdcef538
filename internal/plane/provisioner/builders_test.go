package provisioner

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

const otherProvisioner = "example.com/other"

// claimOpt and the builders below keep each test's objects to the fields
// the test is about.
type claimOpt func(*corev1.PersistentVolumeClaim)

// newClaim is a 1Gi ReadWriteOnce claim in namespace "ns" of class
// "standard", with UID "uid-<name>".
func newClaim(name string, opts ...claimOpt) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(DefaultStorageClass),
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			},
		},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

func withClass(name *string) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) { c.Spec.StorageClassName = name }
}

func withAnnotation(k, v string) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[k] = v
	}
}

func withSpec(f func(*corev1.PersistentVolumeClaimSpec)) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) { f(&c.Spec) }
}

type classOpt func(*storagev1.StorageClass)

// newClass is a class of the given provisioner, not marked default.
func newClass(name, provisioner string, opts ...classOpt) *storagev1.StorageClass {
	c := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner}
	for _, o := range opts {
		o(c)
	}
	return c
}

func asDefault(c *storagev1.StorageClass) {
	c.Annotations = map[string]string{annDefaultClass: "true"}
}

func withReclaim(p corev1.PersistentVolumeReclaimPolicy) classOpt {
	return func(c *storagev1.StorageClass) { c.ReclaimPolicy = &p }
}

func withBinding(m storagev1.VolumeBindingMode) classOpt {
	return func(c *storagev1.StorageClass) { c.VolumeBindingMode = &m }
}

type volumeOpt func(*corev1.PersistentVolume)

// newReleasedVolume is a volume we provisioned at root/<name>, released,
// with policy Delete.
func newReleasedVolume(name, root string, opts ...volumeOpt) *corev1.PersistentVolume {
	v := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{annProvisionedBy: DefaultName}},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: root + "/" + name},
			},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			ClaimRef:                      &corev1.ObjectReference{Namespace: "ns", Name: "gone", UID: "uid-gone"},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeReleased},
	}
	for _, o := range opts {
		o(v)
	}
	return v
}

func withPath(path string) volumeOpt {
	return func(v *corev1.PersistentVolume) { v.Spec.HostPath.Path = path }
}

func withPolicy(p corev1.PersistentVolumeReclaimPolicy) volumeOpt {
	return func(v *corev1.PersistentVolume) { v.Spec.PersistentVolumeReclaimPolicy = p }
}

func withPhase(p corev1.PersistentVolumePhase) volumeOpt {
	return func(v *corev1.PersistentVolume) { v.Status.Phase = p }
}

func withProvisionedBy(name string) volumeOpt {
	return func(v *corev1.PersistentVolume) { v.Annotations[annProvisionedBy] = name }
}
