package provisioner

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// resizeConditions are the claim conditions a resize owns; every other
// condition is left as it is.
var resizeConditions = map[corev1.PersistentVolumeClaimConditionType]bool{
	corev1.PersistentVolumeClaimResizing:                true,
	corev1.PersistentVolumeClaimFileSystemResizePending: true,
	corev1.PersistentVolumeClaimControllerResizeError:   true,
	corev1.PersistentVolumeClaimNodeResizeError:         true,
}

// fsResizePendingMessage is the message upstream writes on the
// FileSystemResizePending condition.
const fsResizePendingMessage = "Waiting for user to (re-)start a pod to finish file system resize of volume on node."

// resizedStatus returns a copy of claim's status after plan's step, or
// nil for a step that writes no status. A condition that is already set
// keeps its transition time.
func resizedStatus(claim *corev1.PersistentVolumeClaim, plan resizePlan, now time.Time) *corev1.PersistentVolumeClaimStatus {
	s := claim.Status.DeepCopy()
	cond := func(t corev1.PersistentVolumeClaimConditionType, msg string) corev1.PersistentVolumeClaimCondition {
		return corev1.PersistentVolumeClaimCondition{Type: t, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Message: msg}
	}
	switch plan.action {
	case resizeMark:
		s.Conditions = mergeResizeConditions(s.Conditions, false, cond(corev1.PersistentVolumeClaimResizing, ""))
		setStorage(&s.AllocatedResources, plan.size)
		setResizeStatus(s, corev1.PersistentVolumeClaimControllerResizeInProgress)
	case resizeExpand:
		s.Conditions = mergeResizeConditions(s.Conditions, true, cond(corev1.PersistentVolumeClaimFileSystemResizePending, fsResizePendingMessage))
		setResizeStatus(s, corev1.PersistentVolumeClaimNodeResizePending)
	case resizeFail, resizeInfeasible:
		s.Conditions = mergeResizeConditions(s.Conditions, true,
			cond(corev1.PersistentVolumeClaimControllerResizeError, "failed to expand pvc with "+plan.reason))
		if plan.action == resizeInfeasible {
			setResizeStatus(s, corev1.PersistentVolumeClaimControllerResizeInfeasible)
		}
	case resizeNodeStart:
		setResizeStatus(s, corev1.PersistentVolumeClaimNodeResizeInProgress)
	case resizeNodeDone:
		setStorage(&s.Capacity, plan.size)
		setResizeStatus(s, "")
		s.Conditions = mergeResizeConditions(s.Conditions, false)
	default:
		return nil
	}
	return s
}

// mergeResizeConditions sets the conditions in set and keeps every
// condition a resize does not own. Of the resize conditions not in set, it
// keeps the existing ones only if keep is true. A condition already present
// with the same status keeps its transition time.
func mergeResizeConditions(old []corev1.PersistentVolumeClaimCondition, keep bool, set ...corev1.PersistentVolumeClaimCondition) []corev1.PersistentVolumeClaimCondition {
	var out []corev1.PersistentVolumeClaimCondition
	done := map[corev1.PersistentVolumeClaimConditionType]bool{}
	for _, c := range old {
		i := conditionIndex(set, c.Type)
		switch {
		case !resizeConditions[c.Type]:
			out = append(out, c)
		case i >= 0 && set[i].Status == c.Status:
			out, done[c.Type] = append(out, c), true
		case i >= 0:
			out, done[c.Type] = append(out, set[i]), true
		case keep:
			out = append(out, c)
		}
	}
	for _, c := range set {
		if !done[c.Type] {
			out = append(out, c)
		}
	}
	return out
}

func conditionIndex(conds []corev1.PersistentVolumeClaimCondition, t corev1.PersistentVolumeClaimConditionType) int {
	for i, c := range conds {
		if c.Type == t {
			return i
		}
	}
	return -1
}

// setStorage sets the storage entry of *list, creating the list if needed.
func setStorage(list *corev1.ResourceList, size resource.Quantity) {
	if *list == nil {
		*list = corev1.ResourceList{}
	}
	(*list)[corev1.ResourceStorage] = size
}

// setResizeStatus sets the storage entry of allocatedResourceStatuses, or
// removes it for "" (and the map with it once empty), as a finished resize
// leaves it.
func setResizeStatus(s *corev1.PersistentVolumeClaimStatus, st corev1.ClaimResourceStatus) {
	if st == "" {
		delete(s.AllocatedResourceStatuses, corev1.ResourceStorage)
		if len(s.AllocatedResourceStatuses) == 0 {
			s.AllocatedResourceStatuses = nil
		}
		return
	}
	if s.AllocatedResourceStatuses == nil {
		s.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{}
	}
	s.AllocatedResourceStatuses[corev1.ResourceStorage] = st
}
