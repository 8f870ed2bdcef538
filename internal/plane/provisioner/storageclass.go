package provisioner

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// Annotations read on StorageClasses: the GA and the legacy beta spelling
// both mark the cluster's default class, as upstream's admission plugin and
// PersistentVolume controller accept either.
const (
	annDefaultClass     = "storageclass.kubernetes.io/is-default-class"
	annBetaDefaultClass = "storageclass.beta.kubernetes.io/is-default-class"
)

// EnsureStorageClass creates cfg's default StorageClass if no class of that
// name exists. It is idempotent and never modifies an existing class: a
// class an administrator changed (reclaim policy Retain, say) stays as it
// is across restarts of the plane.
func EnsureStorageClass(ctx context.Context, client kubernetes.Interface, cfg Config) error {
	cfg = cfg.withDefaults()
	classes := client.StorageV1().StorageClasses()
	existing, err := classes.Get(ctx, cfg.StorageClass, metav1.GetOptions{})
	switch {
	case err == nil:
		if existing.Provisioner != cfg.Name {
			klog.FromContext(ctx).Info("Existing storage class names another provisioner, leaving it alone",
				"storageClass", klog.KObj(existing), "provisioner", existing.Provisioner, "want", cfg.Name)
		}
		return nil
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("getting storage class %s: %w", cfg.StorageClass, err)
	}
	_, err = classes.Create(ctx, newStorageClass(cfg), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating storage class %s: %w", cfg.StorageClass, err)
	}
	return nil
}

// newStorageClass is the default class: Immediate binding because there is
// no topology to wait for (any node reaches any directory), and no expansion
// because a directory has no size to grow.
func newStorageClass(cfg Config) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        cfg.StorageClass,
			Annotations: map[string]string{annDefaultClass: "true"},
		},
		Provisioner:          cfg.Name,
		ReclaimPolicy:        ptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode:    ptr.To(storagev1.VolumeBindingImmediate),
		AllowVolumeExpansion: ptr.To(false),
	}
}

// claimClassName is the class a claim asks for, in upstream's order: the
// legacy beta annotation, then spec.storageClassName, then (only when both
// are absent) the cluster's default class. An empty result means the claim
// wants no class, or there is no default yet.
func claimClassName(claim *corev1.PersistentVolumeClaim, classes []*storagev1.StorageClass) string {
	if name, ok := claim.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return name
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	if def := defaultClass(classes); def != nil {
		return def.Name
	}
	return ""
}

// defaultClass picks the default class as upstream does when several are
// marked: the newest, then the first by name, so that the PersistentVolume
// controller's retroactive assignment and ours agree.
func defaultClass(classes []*storagev1.StorageClass) *storagev1.StorageClass {
	var defaults []*storagev1.StorageClass
	for _, c := range classes {
		if c.Annotations[annDefaultClass] == "true" || c.Annotations[annBetaDefaultClass] == "true" {
			defaults = append(defaults, c)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	sort.Slice(defaults, func(i, j int) bool {
		ti, tj := defaults[i].CreationTimestamp.UnixNano(), defaults[j].CreationTimestamp.UnixNano()
		if ti == tj {
			return defaults[i].Name < defaults[j].Name
		}
		return ti > tj
	})
	return defaults[0]
}

// findClass returns the class called name, or nil.
func findClass(classes []*storagev1.StorageClass, name string) *storagev1.StorageClass {
	for _, c := range classes {
		if c.Name == name {
			return c
		}
	}
	return nil
}
