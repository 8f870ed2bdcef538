package provisioner

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// modifyAction is the next step of moving a bound claim's volume to the
// VolumeAttributesClass its spec names, as the external resizer's modify
// controller takes it. Like a resize, each step writes the claim's status
// and the write requeues the claim.
type modifyAction int

const (
	// modifyNone: the volume has the class the claim asks for, or the claim
	// waits for a change.
	modifyNone modifyAction = iota
	// modifyPending: the class does not exist (yet): modifyVolumeStatus
	// Pending; creating the class requeues the claim.
	modifyPending
	// modifyStart: modifyVolumeStatus InProgress towards the class, with
	// condition ModifyingVolume.
	modifyStart
	// modifyFinish: the volume takes the class: the claim's current class
	// is set, modifyVolumeStatus and the modify conditions cleared.
	modifyFinish
	// modifyInfeasible: the class is for another driver, whose parameters
	// the storage rejects (a CSI InvalidArgument): modifyVolumeStatus
	// Infeasible with a ModifyVolumeError condition, not retried until the
	// claim or the class changes.
	modifyInfeasible
	// modifyCancel: the claim no longer names a class: the ModifyingVolume
	// condition is dropped.
	modifyCancel
)

// modifyPlan is planModify's answer; class is the target's name.
type modifyPlan struct {
	action modifyAction
	class  string
	reason string
}

// planModify decides the next step for claim's attributes class, given
// every VolumeAttributesClass and our provisioner name. It is pure.
func planModify(claim *corev1.PersistentVolumeClaim, vacs []*storagev1.VolumeAttributesClass, name string) modifyPlan {
	want := ptr.Deref(claim.Spec.VolumeAttributesClassName, "")
	current := ptr.Deref(claim.Status.CurrentVolumeAttributesClassName, "")
	ms := claim.Status.ModifyVolumeStatus
	if ms == nil && want == current {
		return modifyPlan{action: modifyNone, reason: "volume has the class the claim asks for"}
	}
	inProgress := ms != nil && ms.Status == corev1.PersistentVolumeClaimModifyVolumeInProgress
	switch {
	case want == "" && !inProgress:
		if hasCondition(claim, corev1.PersistentVolumeClaimVolumeModifyingVolume) {
			return modifyPlan{action: modifyCancel, reason: "claim no longer names a class"}
		}
		return modifyPlan{action: modifyNone, reason: "claim names no class"}
	case want == "":
		// Finish what is under way, as upstream does.
		want = ms.TargetVolumeAttributesClassName
	}
	vac := findVAC(vacs, want)
	if vac == nil {
		if ms != nil && ms.Status == corev1.PersistentVolumeClaimModifyVolumePending {
			return modifyPlan{action: modifyNone, class: want, reason: fmt.Sprintf("class %q does not exist", want)}
		}
		return modifyPlan{action: modifyPending, class: want, reason: fmt.Sprintf("VAC %q does not exist.", want)}
	}
	if !inProgress || ms.TargetVolumeAttributesClassName != want {
		if ms != nil && ms.Status == corev1.PersistentVolumeClaimModifyVolumeInfeasible && ms.TargetVolumeAttributesClassName == want {
			return modifyPlan{action: modifyNone, class: want, reason: "modification is infeasible; waiting for a change"}
		}
		return modifyPlan{action: modifyStart, class: want, reason: fmt.Sprintf("modifying volume to class %q", want)}
	}
	if vac.DriverName != name {
		return modifyPlan{action: modifyInfeasible, class: want, reason: fmt.Sprintf(
			"volume attributes class %q is for driver %q, not %q", want, vac.DriverName, name)}
	}
	return modifyPlan{action: modifyFinish, class: want, reason: fmt.Sprintf("volume modified to class %q", want)}
}

// modifiedStatus returns a copy of claim's status after plan's step, or
// nil for a step that writes no status. The messages and the condition
// reason are upstream's.
func modifiedStatus(claim *corev1.PersistentVolumeClaim, plan modifyPlan, now time.Time) *corev1.PersistentVolumeClaimStatus {
	s := claim.Status.DeepCopy()
	probe := metav1.NewTime(now)
	switch plan.action {
	case modifyPending:
		if s.ModifyVolumeStatus == nil {
			s.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{}
		}
		s.ModifyVolumeStatus.Status = corev1.PersistentVolumeClaimModifyVolumePending
	case modifyStart:
		s.ModifyVolumeStatus = &corev1.ModifyVolumeStatus{TargetVolumeAttributesClassName: plan.class,
			Status: corev1.PersistentVolumeClaimModifyVolumeInProgress}
		s.Conditions = setModifyConditions(s.Conditions, corev1.PersistentVolumeClaimCondition{
			Type: corev1.PersistentVolumeClaimVolumeModifyingVolume, Status: corev1.ConditionTrue, LastProbeTime: probe,
			Message: fmt.Sprintf("Modifying volume to %q is in progress.", plan.class)})
	case modifyInfeasible:
		s.ModifyVolumeStatus.Status = corev1.PersistentVolumeClaimModifyVolumeInfeasible
		s.Conditions = setModifyConditions(s.Conditions, corev1.PersistentVolumeClaimCondition{
			Type: corev1.PersistentVolumeClaimVolumeModifyingVolume, Status: corev1.ConditionTrue, LastProbeTime: probe,
			Message: fmt.Sprintf("Modifying volume to %q failed. Waiting for retry.", plan.class)},
			corev1.PersistentVolumeClaimCondition{Type: corev1.PersistentVolumeClaimVolumeModifyVolumeError,
				Status: corev1.ConditionTrue, LastProbeTime: probe, Reason: "InvalidArgument", Message: plan.reason})
	case modifyFinish:
		s.ModifyVolumeStatus = nil
		s.CurrentVolumeAttributesClassName = ptr.To(plan.class)
		s.Conditions = setModifyConditions(s.Conditions)
	case modifyCancel:
		s.Conditions = dropConditions(s.Conditions, corev1.PersistentVolumeClaimVolumeModifyingVolume)
	default:
		return nil
	}
	return s
}

// setModifyConditions replaces both modify conditions by set.
func setModifyConditions(old []corev1.PersistentVolumeClaimCondition, set ...corev1.PersistentVolumeClaimCondition) []corev1.PersistentVolumeClaimCondition {
	out := dropConditions(old, corev1.PersistentVolumeClaimVolumeModifyingVolume, corev1.PersistentVolumeClaimVolumeModifyVolumeError)
	return append(out, set...)
}

func dropConditions(old []corev1.PersistentVolumeClaimCondition, types ...corev1.PersistentVolumeClaimConditionType) []corev1.PersistentVolumeClaimCondition {
	var out []corev1.PersistentVolumeClaimCondition
	for _, c := range old {
		if !slices.Contains(types, c.Type) {
			out = append(out, c)
		}
	}
	return out
}

// findVAC returns the class called name, or nil.
func findVAC(vacs []*storagev1.VolumeAttributesClass, name string) *storagev1.VolumeAttributesClass {
	for _, v := range vacs {
		if v.Name == name {
			return v
		}
	}
	return nil
}
