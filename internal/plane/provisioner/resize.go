package provisioner

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// resizeAction is the next step of growing a bound claim's volume. A step
// writes the claim's status, and that write requeues the claim for the next
// step, so a resize interrupted by a restart resumes from what the claim
// records, as the external resizer's does.
type resizeAction int

const (
	// resizeNone: nothing to grow, or waiting for the user to change the
	// request (after an infeasible one).
	resizeNone resizeAction = iota
	// resizeMark: record size in allocatedResources with status
	// ControllerResizeInProgress and condition Resizing, before asking the
	// storage; what the external resizer does before it calls the driver.
	resizeMark
	// resizeWait: a "slow" storage is still working; look again after.
	resizeWait
	// resizeExpand: the storage grew the volume: raise the volume's
	// capacity and leave the file system to the node (NodeResizePending,
	// condition FileSystemResizePending).
	resizeExpand
	// resizeFail: the storage failed: condition ControllerResizeError,
	// status stays ControllerResizeInProgress, retried with backoff.
	resizeFail
	// resizeInfeasible: the storage can never do it: status
	// ControllerResizeInfeasible and condition ControllerResizeError, not
	// retried until the request changes.
	resizeInfeasible
	// resizeNodeStart: the node starts growing the file system
	// (NodeResizeInProgress).
	resizeNodeStart
	// resizeNodeDone: the node is done: the claim's capacity becomes size,
	// the resize status and conditions are cleared.
	resizeNodeDone
)

// resizePlan is planResize's answer.
type resizePlan struct {
	action resizeAction
	size   resource.Quantity
	after  time.Duration // for resizeWait
	reason string
}

// planResize decides the next step of growing claim, bound to pv (ours),
// given the simulated storage's behaviour and the time. It is pure.
//
// It follows the external resizer with failure recovery (KEP-1790) for the
// controller's part and the kubelet for the node's: there is no kubelet in
// the plane, so the node's part follows the controller's at once, whether or
// not a pod uses the claim.
func planResize(claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, sim simResize, now time.Time) resizePlan {
	pvSize := pv.Spec.Capacity[corev1.ResourceStorage]
	switch claim.Status.AllocatedResourceStatuses[corev1.ResourceStorage] {
	case corev1.PersistentVolumeClaimNodeResizePending:
		return resizePlan{action: resizeNodeStart, size: pvSize, reason: "file system resize pending on the node"}
	case corev1.PersistentVolumeClaimNodeResizeInProgress:
		return resizePlan{action: resizeNodeDone, size: pvSize, reason: "file system resized on the node"}
	}
	request := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	capacity := claim.Status.Capacity[corev1.ResourceStorage]
	if request.Cmp(capacity) <= 0 {
		return resizePlan{action: resizeNone, reason: "request is not above capacity"}
	}
	size := resizeTarget(claim, pvSize)
	status := claim.Status.AllocatedResourceStatuses[corev1.ResourceStorage]
	allocated, ok := claim.Status.AllocatedResources[corev1.ResourceStorage]
	if status == corev1.PersistentVolumeClaimControllerResizeInfeasible && ok && allocated.Cmp(size) == 0 {
		return resizePlan{action: resizeNone, size: size, reason: "resize is infeasible; waiting for a smaller request"}
	}
	if status != corev1.PersistentVolumeClaimControllerResizeInProgress || !ok || allocated.Cmp(size) != 0 {
		return resizePlan{action: resizeMark, size: size, reason: fmt.Sprintf("resize to %s", size.String())}
	}
	if sim.mode == simResizeSlow {
		if left := sim.delay - now.Sub(resizeStarted(claim)); left > 0 {
			return resizePlan{action: resizeWait, size: size, after: left, reason: "simulated slow resize"}
		}
	}
	action, msg := sim.answer(size)
	if action == resizeExpand {
		msg = fmt.Sprintf("volume grown to %s", size.String())
	}
	return resizePlan{action: action, size: size, reason: msg}
}

// resizeTarget is the size to grow to, by the external resizer's rules
// for recovering from a failed expansion: a new request replaces one that
// failed for good (an error condition, or infeasible) but not one whose
// resize may still be under way, which is finished first; and once the
// volume is at least as large as the request, the recorded allocation is
// completed rather than a new size started.
func resizeTarget(claim *corev1.PersistentVolumeClaim, pvSize resource.Quantity) resource.Quantity {
	request := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	allocated, ok := claim.Status.AllocatedResources[corev1.ResourceStorage]
	if !ok {
		return request
	}
	if pvSize.Cmp(request) >= 0 {
		return allocated
	}
	if claim.Status.AllocatedResourceStatuses[corev1.ResourceStorage] == corev1.PersistentVolumeClaimControllerResizeInProgress &&
		!hasCondition(claim, corev1.PersistentVolumeClaimControllerResizeError) {
		return allocated
	}
	return request
}

// resizeStarted is when the current controller resize began: the Resizing
// condition's transition time, or the zero time without one.
func resizeStarted(claim *corev1.PersistentVolumeClaim) time.Time {
	for _, c := range claim.Status.Conditions {
		if c.Type == corev1.PersistentVolumeClaimResizing {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func hasCondition(claim *corev1.PersistentVolumeClaim, t corev1.PersistentVolumeClaimConditionType) bool {
	for _, c := range claim.Status.Conditions {
		if c.Type == t {
			return true
		}
	}
	return false
}
