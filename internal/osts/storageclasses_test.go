package osts_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

func class(name string, expand *bool, isDefault bool, created int) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name,
		CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, created, 0, time.UTC))}, AllowVolumeExpansion: expand}
	if isDefault {
		sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	}
	return sc
}

func TestStorageClassesSayWhichGrowAndWhichIsTheDefault(t *testing.T) {
	list := []*storagev1.StorageClass{
		class("standard", ptr.To(true), true, 1),
		class("fast", nil, true, 2),
		class("slow", ptr.To(false), false, 3),
	}
	ext, o := &planner.Extended{ClaimUpdate: v1alpha1.InPlaceVolumeClaimUpdateStrategyType}, &planner.Observed{}
	osts.StorageClasses(ext, o, list)
	if diff := cmp.Diff(map[string]bool{"standard": true, "fast": false, "slow": false}, o.StorageClasses); diff != "" {
		t.Errorf("expandable classes (-want +got):\n%s", diff)
	}
	if o.DefaultStorageClass != "fast" {
		t.Errorf("default class %q, want the newest of the two marked default, fast", o.DefaultStorageClass)
	}
	onDelete, none := &planner.Extended{ClaimUpdate: v1alpha1.OnClaimDeleteVolumeClaimUpdateStrategyType}, &planner.Observed{}
	osts.StorageClasses(onDelete, none, list)
	if none.StorageClasses != nil {
		t.Errorf("an OnClaimDelete set got classes %v; it reads none", none.StorageClasses)
	}
}
