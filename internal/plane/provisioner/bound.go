package provisioner

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// Event reasons of a resize and a modification: the external resizer's,
// and for the end of the node's part of a resize the kubelet's, which
// upstream records on the pod; the plane has no kubelet and records it on
// the claim.
const (
	reasonResizing                 = "Resizing"
	reasonResizeFailed             = "VolumeResizeFailed"
	reasonFileSystemResizeRequired = "FileSystemResizeRequired"
	reasonFileSystemResizeDone     = "FileSystemResizeSuccessful"
	reasonModify                   = "VolumeModify"
	reasonModifyFailed             = "VolumeModifyFailed"
	reasonModifySucceeded          = "VolumeModifySuccessful"
	reasonModifyCanceled           = "VolumeModifyCanceled"
)

// requeueError asks processNext to look at the item again after a delay,
// without counting a failure.
type requeueError struct{ after time.Duration }

func (e *requeueError) Error() string { return fmt.Sprintf("requeue after %v", e.after) }

// syncBound grows and modifies the volume of a bound claim whose volume we
// provisioned. One sync writes the claim's status at most once; the write
// requeues the claim for the next step, the resize first.
func (p *Provisioner) syncBound(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	if claim.DeletionTimestamp != nil || claim.Status.Phase != corev1.ClaimBound {
		return nil
	}
	pv, err := p.volumes.Get(claim.Spec.VolumeName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting volume %s from cache: %w", claim.Spec.VolumeName, err)
	}
	if pv.Annotations[annProvisionedBy] != p.name || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID != claim.UID {
		return nil
	}
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("pvc", klog.KObj(claim), "pv", klog.KObj(pv)))
	if done, err := p.resize(ctx, claim, pv); done || err != nil {
		return err
	}
	return p.modify(ctx, claim)
}

// resize carries out planResize's step; done reports that the claim's
// resize took this sync (a write, a wait or a failure), so nothing else may
// write the claim in it.
func (p *Provisioner) resize(ctx context.Context, claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) (done bool, err error) {
	sim, simErr := parseSimResize(claim)
	now := p.now()
	plan := planResize(claim, pv, sim, now)
	switch plan.action {
	case resizeNone:
		return false, nil
	case resizeWait:
		return true, &requeueError{after: plan.after}
	case resizeExpand, resizeFail, resizeInfeasible:
		if simErr != nil {
			p.recorder.Eventf(claim, corev1.EventTypeWarning, reasonResizeFailed, "%v", simErr)
			return true, nil
		}
	}
	klog.FromContext(ctx).V(2).Info("Resizing volume", "step", plan.action, "size", plan.size.String(), "reason", plan.reason)
	if plan.action == resizeExpand {
		if err := p.growVolume(ctx, pv, plan); err != nil {
			return true, err
		}
	}
	if err := p.writeStatus(ctx, claim, resizedStatus(claim, plan, now)); err != nil {
		return true, err
	}
	return true, p.resizeEvent(claim, pv, plan)
}

// growVolume raises pv's capacity to plan.size; a volume already that
// large (an earlier attempt got this far) is left alone.
func (p *Provisioner) growVolume(ctx context.Context, pv *corev1.PersistentVolume, plan resizePlan) error {
	if cur := pv.Spec.Capacity[corev1.ResourceStorage]; cur.Cmp(plan.size) >= 0 {
		return nil
	}
	grown := pv.DeepCopy()
	grown.Spec.Capacity[corev1.ResourceStorage] = plan.size
	if _, err := p.client.CoreV1().PersistentVolumes().Update(ctx, grown, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("raising capacity of volume %s to %s: %w", pv.Name, plan.size.String(), err)
	}
	return nil
}

// resizeEvent records plan's step on the claim, in upstream's words. A
// storage failure is also returned as an error, so the claim is retried
// with backoff.
func (p *Provisioner) resizeEvent(claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, plan resizePlan) error {
	switch plan.action {
	case resizeMark:
		p.recorder.Eventf(claim, corev1.EventTypeNormal, reasonResizing, "External resizer is resizing volume %s", pv.Name)
	case resizeExpand:
		p.recorder.Event(claim, corev1.EventTypeNormal, reasonFileSystemResizeRequired, "Require file system resize of volume on node")
	case resizeNodeDone:
		p.recorder.Eventf(claim, corev1.EventTypeNormal, reasonFileSystemResizeDone, "MountVolume.NodeExpandVolume succeeded for volume %q", pv.Name)
	case resizeFail, resizeInfeasible:
		msg := fmt.Sprintf("resize volume %q by resizer %q failed: %s", pv.Name, p.name, plan.reason)
		p.recorder.Event(claim, corev1.EventTypeWarning, reasonResizeFailed, msg)
		if plan.action == resizeFail {
			return errors.New(msg)
		}
	}
	return nil
}

// modify carries out planModify's step.
func (p *Provisioner) modify(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	vacs, err := p.vacs.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing volume attributes classes from cache: %w", err)
	}
	plan := planModify(claim, vacs, p.name)
	if plan.action == modifyNone {
		return nil
	}
	klog.FromContext(ctx).V(2).Info("Modifying volume", "step", plan.action, "class", plan.class, "reason", plan.reason)
	// The external resizer also sets the volume's volumeAttributesClassName;
	// the API server accepts that field on CSI volumes only, so a hostPath
	// volume keeps none and the claim's status alone records the class. The
	// PersistentVolume controller copies the volume's class into the claim
	// only when it binds them, so it never undoes this.
	if err := p.writeStatus(ctx, claim, modifiedStatus(claim, plan, p.now())); err != nil {
		return err
	}
	p.modifyEvent(claim, plan)
	return nil
}

// modifyEvent records plan's step on the claim, in upstream's words.
func (p *Provisioner) modifyEvent(claim *corev1.PersistentVolumeClaim, plan modifyPlan) {
	switch plan.action {
	case modifyPending, modifyInfeasible:
		p.recorder.Event(claim, corev1.EventTypeWarning, reasonModifyFailed, plan.reason)
	case modifyStart:
		p.recorder.Eventf(claim, corev1.EventTypeNormal, reasonModify, "external resizer is modifying volume %s with vac %s", claim.Name, plan.class)
	case modifyFinish:
		p.recorder.Eventf(claim, corev1.EventTypeNormal, reasonModifySucceeded, "external resizer modified volume %s with vac %s successfully", claim.Name, plan.class)
	case modifyCancel:
		p.recorder.Event(claim, corev1.EventTypeNormal, reasonModifyCanceled, "Cancelled modify.")
	}
}

// writeStatus replaces claim's status by status unless it is nil or
// unchanged. The write carries claim's resourceVersion, so a claim changed
// since the cache saw it fails with a conflict and is retried.
func (p *Provisioner) writeStatus(ctx context.Context, claim *corev1.PersistentVolumeClaim, status *corev1.PersistentVolumeClaimStatus) error {
	if status == nil || equality.Semantic.DeepEqual(*status, claim.Status) {
		return nil
	}
	updated := claim.DeepCopy()
	updated.Status = *status
	_, err := p.client.CoreV1().PersistentVolumeClaims(claim.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("updating status of claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}
