package provisioner

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// boundPair is a claim bound to a volume we provisioned, both 1Gi, as the
// PersistentVolume controller leaves them.
func boundPair(h *harness, opts ...claimOpt) (*corev1.PersistentVolumeClaim, *corev1.PersistentVolume) {
	claim := boundClaim("1Gi", opts...)
	pv := newVolume(claim, newStorageClass(Config{}.withDefaults()), DefaultName, h.root, "")
	pv.Status.Phase = corev1.VolumeBound
	return claim, pv
}

// setRequest changes the claim's storage request, as a user would.
func (h *harness) setRequest(name, size string) {
	h.t.Helper()
	c, err := h.client.CoreV1().PersistentVolumeClaims("ns").Get(h.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
	if _, err := h.client.CoreV1().PersistentVolumeClaims("ns").Update(h.t.Context(), c, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// waitClaim waits until cond holds for the claim and returns it.
func (h *harness) waitClaim(what string, cond func(*corev1.PersistentVolumeClaim) bool) *corev1.PersistentVolumeClaim {
	h.t.Helper()
	var got *corev1.PersistentVolumeClaim
	h.poll(what, func(ctx context.Context) (bool, error) {
		c, err := h.client.CoreV1().PersistentVolumeClaims("ns").Get(ctx, "data", metav1.GetOptions{})
		got = c
		return err == nil && cond(c), err
	})
	return got
}

func capacityIs(size string) func(*corev1.PersistentVolumeClaim) bool {
	return func(c *corev1.PersistentVolumeClaim) bool {
		q := c.Status.Capacity[corev1.ResourceStorage]
		return q.Cmp(resource.MustParse(size)) == 0
	}
}

func resizeStatusIs(st corev1.ClaimResourceStatus) func(*corev1.PersistentVolumeClaim) bool {
	return func(c *corev1.PersistentVolumeClaim) bool {
		return c.Status.AllocatedResourceStatuses[corev1.ResourceStorage] == st
	}
}

func TestGrowingABoundClaimRaisesVolumeAndClaimCapacity(t *testing.T) {
	h := newHarness(t)
	claim, pv := boundPair(h)
	h.createVolume(pv)
	h.createClaim(claim)
	h.start()
	h.setRequest("data", "2Gi")

	got := h.waitClaim("capacity 2Gi", capacityIs("2Gi"))
	if got.Status.AllocatedResourceStatuses != nil || len(got.Status.Conditions) != 0 {
		t.Errorf("finished resize left status %+v", got.Status)
	}
	if q := h.waitVolume(pv.Name).Spec.Capacity[corev1.ResourceStorage]; q.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("volume capacity = %s, want 2Gi", q.String())
	}
	h.waitEvent("Normal Resizing External resizer is resizing volume " + pv.Name)
	h.waitEvent("Normal FileSystemResizeRequired")
	h.waitEvent("Normal FileSystemResizeSuccessful")
}

func TestAFailingResizeRetriesAndRecoversWhenTheStorageWorksAgain(t *testing.T) {
	h := newHarness(t)
	claim, pv := boundPair(h, withAnnotation(annResize, simResizeFail))
	h.createVolume(pv)
	h.createClaim(claim)
	h.start()
	h.setRequest("data", "2Gi")

	h.waitClaim("a ControllerResizeError", func(c *corev1.PersistentVolumeClaim) bool {
		return resizeStatusIs(corev1.PersistentVolumeClaimControllerResizeInProgress)(c) &&
			hasCondition(c, corev1.PersistentVolumeClaimControllerResizeError)
	})
	h.waitEvent("Warning VolumeResizeFailed")
	c, _ := h.client.CoreV1().PersistentVolumeClaims("ns").Get(t.Context(), "data", metav1.GetOptions{})
	delete(c.Annotations, annResize)
	if _, err := h.client.CoreV1().PersistentVolumeClaims("ns").Update(t.Context(), c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitClaim("capacity 2Gi", capacityIs("2Gi"))
}

func TestAnInfeasibleResizeRecoversWhenTheRequestIsLowered(t *testing.T) {
	h := newHarness(t)
	claim, pv := boundPair(h, withAnnotation(annResizeMax, "5Gi"))
	h.createVolume(pv)
	h.createClaim(claim)
	h.start()
	h.setRequest("data", "8Gi")

	h.waitClaim("ControllerResizeInfeasible", resizeStatusIs(corev1.PersistentVolumeClaimControllerResizeInfeasible))
	h.waitEvent("exceeds the storage's limit of 5Gi")
	h.setRequest("data", "4Gi")
	got := h.waitClaim("capacity 4Gi", capacityIs("4Gi"))
	if a := got.Status.AllocatedResources[corev1.ResourceStorage]; a.Cmp(resource.MustParse("4Gi")) != 0 {
		t.Errorf("allocatedResources = %s, want 4Gi", a.String())
	}
}

func TestChangingTheAttributesClassMovesTheVolumeToIt(t *testing.T) {
	h := newHarness(t, newVAC("fast", DefaultName))
	claim, pv := boundPair(h, wantsVAC("fast"))
	h.createVolume(pv)
	h.createClaim(claim)
	h.start()

	h.waitClaim("current class fast", func(c *corev1.PersistentVolumeClaim) bool {
		return ptr.Deref(c.Status.CurrentVolumeAttributesClassName, "") == "fast" && c.Status.ModifyVolumeStatus == nil
	})
	// The API server refuses volumeAttributesClassName on a volume that is
	// not CSI, so a hostPath volume must keep none.
	if got := h.waitVolume(pv.Name).Spec.VolumeAttributesClassName; got != nil {
		t.Errorf("volume's attributes class = %q, want none", *got)
	}
	h.waitEvent("Normal VolumeModifySuccessful")
}

func TestAMissingAttributesClassIsPendingUntilItIsCreated(t *testing.T) {
	h := newHarness(t)
	claim, pv := boundPair(h, wantsVAC("gold"))
	h.createVolume(pv)
	h.createClaim(claim)
	h.start()

	h.waitClaim("modify Pending", func(c *corev1.PersistentVolumeClaim) bool {
		ms := c.Status.ModifyVolumeStatus
		return ms != nil && ms.Status == corev1.PersistentVolumeClaimModifyVolumePending
	})
	h.waitEvent(`Warning VolumeModifyFailed VAC "gold" does not exist.`)
	if _, err := h.client.StorageV1().VolumeAttributesClasses().Create(t.Context(), newVAC("gold", DefaultName), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.waitClaim("current class gold", func(c *corev1.PersistentVolumeClaim) bool {
		return ptr.Deref(c.Status.CurrentVolumeAttributesClassName, "") == "gold"
	})
}

func TestASlowResizeFinishesOnlyAfterItsDelay(t *testing.T) {
	h := newHarness(t)
	claim, pv := boundPair(h, withAnnotation(annResize, simResizeSlow), withAnnotation(annResizeDelay, "1s"))
	h.createVolume(pv)
	h.createClaim(claim)
	h.start()
	h.setRequest("data", "2Gi")

	inProgress := h.waitClaim("ControllerResizeInProgress", resizeStatusIs(corev1.PersistentVolumeClaimControllerResizeInProgress))
	started := resizeStarted(inProgress)
	h.waitClaim("capacity 2Gi", capacityIs("2Gi"))
	if done := time.Now(); done.Sub(started) < time.Second {
		t.Errorf("resize finished %v after it started, want at least the 1s delay", done.Sub(started))
	}
}
