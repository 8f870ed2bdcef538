package provisioner

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
// name exists. It is idempotent and modifies an existing class in one way
// only: a class of our provisioner that does not allow expansion and has no
// annExpansionDefaulted (one made before the plane could grow volumes) gets
// allowVolumeExpansion and that annotation, once; so a class an
// administrator changed afterwards (reclaim policy Retain, expansion off)
// stays as it is across restarts of the plane. Other classes are never
// touched.
func EnsureStorageClass(ctx context.Context, client kubernetes.Interface, cfg Config) error {
	cfg = cfg.withDefaults()
	classes := client.StorageV1().StorageClasses()
	existing, err := classes.Get(ctx, cfg.StorageClass, metav1.GetOptions{})
	switch {
	case err == nil:
		if existing.Provisioner != cfg.Name {
			klog.FromContext(ctx).Info("Existing storage class names another provisioner, leaving it alone",
				"storageClass", klog.KObj(existing), "provisioner", existing.Provisioner, "want", cfg.Name)
			return nil
		}
		return allowExpansion(ctx, client, existing)
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("getting storage class %s: %w", cfg.StorageClass, err)
	}
	_, err = classes.Create(ctx, newStorageClass(cfg), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating storage class %s: %w", cfg.StorageClass, err)
	}
	return nil
}

// annExpansionDefaulted marks a class of ours whose allowVolumeExpansion
// the plane has set (or created); its presence means the field is the
// administrator's to change.
const annExpansionDefaulted = "storage.ordinal.dev/expansion-defaulted"

// allowExpansion turns on expansion of class, ours, unless it was turned on
// (and marked) before. A merge patch touches only those two fields.
func allowExpansion(ctx context.Context, client kubernetes.Interface, class *storagev1.StorageClass) error {
	if _, done := class.Annotations[annExpansionDefaulted]; done || ptr.Deref(class.AllowVolumeExpansion, false) {
		return nil
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"true"}},"allowVolumeExpansion":true}`, annExpansionDefaulted)
	_, err := client.StorageV1().StorageClasses().Patch(ctx, class.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("allowing expansion on storage class %s: %w", class.Name, err)
	}
	klog.FromContext(ctx).Info("Allowed volume expansion on storage class", "storageClass", klog.KObj(class))
	return nil
}

// newStorageClass is the default class: Immediate binding because there is
// no topology to wait for (any node reaches any directory), and expansion
// allowed: the provisioner plays the resizer, growing a volume's recorded
// capacity (a directory has no size of its own to grow).
func newStorageClass(cfg Config) *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        cfg.StorageClass,
			Annotations: map[string]string{annDefaultClass: "true", annExpansionDefaulted: "true"},
		},
		Provisioner:          cfg.Name,
		ReclaimPolicy:        ptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode:    ptr.To(storagev1.VolumeBindingImmediate),
		AllowVolumeExpansion: ptr.To(true),
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
