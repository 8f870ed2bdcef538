package plane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/internal/plane/planetest"
)

func TestABoundClaimGrowsAndChangesAttributesClassOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	claims := planetest.Client().CoreV1().PersistentVolumeClaims(ns)
	t.Cleanup(func() { logClaim(t, ns) })
	createBoundClaim(t, ctx, ns, nil)

	patch := []byte(`{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`)
	if _, err := claims.Patch(ctx, "data", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("growing the claim (the default class must allow expansion): %v", err)
	}
	grown := waitClaim(t, ctx, ns, "capacity 2Gi", func(c *corev1.PersistentVolumeClaim) bool {
		q := c.Status.Capacity[corev1.ResourceStorage]
		return q.Cmp(resource.MustParse("2Gi")) == 0
	})
	if grown.Status.AllocatedResourceStatuses != nil {
		t.Errorf("allocatedResourceStatuses = %v after the resize, want none", grown.Status.AllocatedResourceStatuses)
	}
	pv, err := planetest.Client().CoreV1().PersistentVolumes().Get(ctx, grown.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := pv.Spec.Capacity[corev1.ResourceStorage]; q.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("volume capacity = %s, want 2Gi", q.String())
	}

	vac := &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-fast"}, DriverName: "ordinal.dev/hostpath",
		Parameters: map[string]string{"tier": "fast"}}
	if _, err := planetest.Client().StorageV1().VolumeAttributesClasses().Create(ctx, vac, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a VolumeAttributesClass: %v", err)
	}
	t.Cleanup(func() {
		_ = planetest.Client().StorageV1().VolumeAttributesClasses().Delete(context.Background(), vac.Name, metav1.DeleteOptions{})
	})
	patch = []byte(`{"spec":{"volumeAttributesClassName":"` + vac.Name + `"}}`)
	if _, err := claims.Patch(ctx, "data", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("changing the claim's attributes class: %v", err)
	}
	waitClaim(t, ctx, ns, "current attributes class", func(c *corev1.PersistentVolumeClaim) bool {
		return ptr.Deref(c.Status.CurrentVolumeAttributesClassName, "") == vac.Name && c.Status.ModifyVolumeStatus == nil
	})
}

func waitClaim(t *testing.T, ctx context.Context, ns, what string, cond func(*corev1.PersistentVolumeClaim) bool) *corev1.PersistentVolumeClaim {
	t.Helper()
	var got *corev1.PersistentVolumeClaim
	poll(t, ctx, "claim "+what, func() bool {
		c, err := planetest.Client().CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{})
		got = c
		return err == nil && cond(c)
	})
	return got
}

// logClaim shows a failed test the claim's status and events.
func logClaim(t *testing.T, ns string) {
	if !t.Failed() {
		return
	}
	ctx := context.Background()
	if c, err := planetest.Client().CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{}); err == nil {
		t.Logf("claim spec %+v\nstatus %+v", c.Spec, c.Status)
	}
	events, err := planetest.Client().CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for _, e := range events.Items {
		t.Logf("event %s %s %s: %s", e.InvolvedObject.Name, e.Type, e.Reason, e.Message)
	}
}

func TestAnInfeasibleResizeRecoversByLoweringTheRequestOnTheRealAPIServer(t *testing.T) {
	ctx, ns := namespace(t)
	claims := planetest.Client().CoreV1().PersistentVolumeClaims(ns)
	t.Cleanup(func() { logClaim(t, ns) })
	createBoundClaim(t, ctx, ns, map[string]string{"sim.ordinal.dev/resize-max": "3Gi"})
	setRequest := func(size string) {
		t.Helper()
		patch := []byte(`{"spec":{"resources":{"requests":{"storage":"` + size + `"}}}}`)
		if _, err := claims.Patch(ctx, "data", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("setting the request to %s: %v", size, err)
		}
	}
	setRequest("8Gi")
	waitClaim(t, ctx, ns, "ControllerResizeInfeasible", func(c *corev1.PersistentVolumeClaim) bool {
		return c.Status.AllocatedResourceStatuses[corev1.ResourceStorage] == corev1.PersistentVolumeClaimControllerResizeInfeasible
	})
	setRequest("3Gi")
	waitClaim(t, ctx, ns, "capacity 3Gi", func(c *corev1.PersistentVolumeClaim) bool {
		q := c.Status.Capacity[corev1.ResourceStorage]
		return q.Cmp(resource.MustParse("3Gi")) == 0 && c.Status.AllocatedResourceStatuses == nil
	})
}

// createBoundClaim creates a 1Gi claim "data" of the default class with
// annotations and waits for it to be bound.
func createBoundClaim(t *testing.T, ctx context.Context, ns string, annotations map[string]string) {
	t.Helper()
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Annotations: annotations},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := planetest.Client().CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitClaim(t, ctx, ns, "Bound", func(c *corev1.PersistentVolumeClaim) bool { return c.Status.Phase == corev1.ClaimBound })
}
