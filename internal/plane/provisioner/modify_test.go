package provisioner

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func newVAC(name, driver string) *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{ObjectMeta: metav1.ObjectMeta{Name: name}, DriverName: driver}
}

func wantsVAC(name string) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeAttributesClassName = ptr.To(name) }
}

func modifying(target string, st corev1.PersistentVolumeClaimModifyVolumeStatus) claimOpt {
	return func(c *corev1.PersistentVolumeClaim) {
		c.Status.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: target, Status: st}
	}
}

func TestPlanModify(t *testing.T) {
	vacs := []*storagev1.VolumeAttributesClass{newVAC("fast", DefaultName), newVAC("foreign", otherProvisioner)}
	tests := []struct {
		name  string
		claim *corev1.PersistentVolumeClaim
		want  modifyAction
	}{
		{name: "a claim without a class needs nothing", claim: boundClaim("1Gi"), want: modifyNone},
		{name: "a new class starts a modification", claim: boundClaim("1Gi", wantsVAC("fast")), want: modifyStart},
		{name: "a modification in progress finishes", claim: boundClaim("1Gi", wantsVAC("fast"),
			modifying("fast", corev1.PersistentVolumeClaimModifyVolumeInProgress)), want: modifyFinish},
		{name: "a missing class is pending", claim: boundClaim("1Gi", wantsVAC("gold")), want: modifyPending},
		{name: "a claim already pending for a missing class waits", claim: boundClaim("1Gi", wantsVAC("gold"),
			modifying("", corev1.PersistentVolumeClaimModifyVolumePending)), want: modifyNone},
		{name: "a class of another driver is infeasible", claim: boundClaim("1Gi", wantsVAC("foreign"),
			modifying("foreign", corev1.PersistentVolumeClaimModifyVolumeInProgress)), want: modifyInfeasible},
		{name: "an infeasible class waits for a change", claim: boundClaim("1Gi", wantsVAC("foreign"),
			modifying("foreign", corev1.PersistentVolumeClaimModifyVolumeInfeasible)), want: modifyNone},
		{name: "a class changed after an infeasible one starts again", claim: boundClaim("1Gi", wantsVAC("fast"),
			modifying("foreign", corev1.PersistentVolumeClaimModifyVolumeInfeasible)), want: modifyStart},
		{name: "a claim on its current class needs nothing", claim: boundClaim("1Gi", wantsVAC("fast"),
			func(c *corev1.PersistentVolumeClaim) { c.Status.CurrentVolumeAttributesClassName = ptr.To("fast") }), want: modifyNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := planModify(tt.claim, vacs, DefaultName); got.action != tt.want {
				t.Errorf("planModify() = %+v, want action %d", got, tt.want)
			}
		})
	}
}

func TestModifiedStatusFinishesOnTheTarget(t *testing.T) {
	claim := boundClaim("1Gi", wantsVAC("fast"))
	vacs := []*storagev1.VolumeAttributesClass{newVAC("fast", DefaultName)}
	claim.Status = *modifiedStatus(claim, planModify(claim, vacs, DefaultName), t0)
	ms := claim.Status.ModifyVolumeStatus
	if ms == nil || ms.Status != corev1.PersistentVolumeClaimModifyVolumeInProgress || ms.TargetVolumeAttributesClassName != "fast" ||
		!hasCondition(claim, corev1.PersistentVolumeClaimVolumeModifyingVolume) {
		t.Fatalf("after start: modifyVolumeStatus %+v, conditions %+v", ms, claim.Status.Conditions)
	}
	claim.Status = *modifiedStatus(claim, planModify(claim, vacs, DefaultName), t0)
	if claim.Status.ModifyVolumeStatus != nil || ptr.Deref(claim.Status.CurrentVolumeAttributesClassName, "") != "fast" ||
		len(claim.Status.Conditions) != 0 {
		t.Errorf("after finish: status %+v", claim.Status)
	}
}
