package provisioner

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// Event reasons, the same as upstream's provisioners use so that
// `kubectl describe` reads the same.
const (
	reasonProvisioningFailed    = "ProvisioningFailed"
	reasonProvisioningSucceeded = "ProvisioningSucceeded"
	reasonVolumeFailedDelete    = "VolumeFailedDelete"
)

// syncClaim carries out planClaim for one unbound claim, and syncBound's
// resize and modification for a bound one. A returned error is
// transient and requeues the claim with backoff; what no retry can fix is
// reported as an event and returns nil.
func (p *Provisioner) syncClaim(ctx context.Context, namespace, name string) error {
	claim, err := p.claims.PersistentVolumeClaims(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting claim %s/%s from cache: %w", namespace, name, err)
	}
	if claim.Spec.VolumeName != "" {
		return p.syncBound(ctx, claim)
	}
	classes, err := p.classes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing storage classes from cache: %w", err)
	}
	_, err = p.volumes.Get(volumeName(claim))
	exists := err == nil
	plan := planClaim(claim, classes, exists, p.name)

	logger := klog.FromContext(ctx).WithValues("pvc", klog.KObj(claim))
	switch plan.action {
	case claimIgnore:
		logger.V(5).Info("Ignoring claim", "reason", plan.reason)
		return nil
	case claimWait:
		logger.V(3).Info("Claim cannot be provisioned yet", "reason", plan.reason)
		return nil
	case claimReject:
		logger.Info("Claim cannot be provisioned", "reason", plan.reason)
		p.recorder.Event(claim, corev1.EventTypeWarning, reasonProvisioningFailed, plan.reason)
		return nil
	}
	return p.provision(klog.NewContext(ctx, logger), claim, plan)
}

// provision creates the directory first and the volume second, so a volume
// never points at a directory that does not exist. A failed attempt leaves
// the directory for the retry to reuse.
func (p *Provisioner) provision(ctx context.Context, claim *corev1.PersistentVolumeClaim, plan claimPlan) error {
	host, err := p.pinHost(ctx, claim, plan.class)
	if err != nil {
		return err
	}
	pv := newVolume(claim, plan.class, p.name, p.root, host)
	if err := ensureDir(p.root, pv.Name); err != nil {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, reasonProvisioningFailed, "creating directory for volume %s: %v", pv.Name, err)
		return fmt.Errorf("provisioning claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	_, err = p.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// An earlier attempt created it and the cache had not caught up.
		return nil
	}
	if err != nil {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, reasonProvisioningFailed, "creating volume %s: %v", pv.Name, err)
		return fmt.Errorf("creating volume %s for claim %s/%s: %w", pv.Name, claim.Namespace, claim.Name, err)
	}
	klog.FromContext(ctx).Info("Provisioned volume", "pv", klog.KObj(pv), "path", pv.Spec.HostPath.Path, "reason", plan.reason)
	p.recorder.Eventf(claim, corev1.EventTypeNormal, reasonProvisioningSucceeded,
		"Successfully provisioned volume %s at %s", pv.Name, pv.Spec.HostPath.Path)
	return nil
}

// pinHost is the host a local volume for claim is pinned to (hostOf the
// node the scheduler selected), or "" for a volume every node can use. A
// selected node that cannot be read fails the attempt, which is retried.
func (p *Provisioner) pinHost(ctx context.Context, claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) (string, error) {
	name, ok := pinsToNode(claim, class)
	if !ok {
		return "", nil
	}
	node, err := p.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		p.recorder.Eventf(claim, corev1.EventTypeWarning, reasonProvisioningFailed, "reading the selected node %s: %v", name, err)
		return "", fmt.Errorf("reading node %s selected for claim %s/%s: %w", name, claim.Namespace, claim.Name, err)
	}
	return hostOf(node), nil
}

// syncVolume carries out planVolume for one volume, with the same error
// contract as syncClaim.
func (p *Provisioner) syncVolume(ctx context.Context, name string) error {
	pv, err := p.volumes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting volume %s from cache: %w", name, err)
	}
	logger := klog.FromContext(ctx).WithValues("pv", klog.KObj(pv))
	plan := planVolume(pv, p.name, p.root)
	switch plan.action {
	case volumeKeep:
		logger.V(5).Info("Keeping volume", "reason", plan.reason)
		return nil
	case volumeRefuse:
		logger.Error(nil, "Refusing to delete volume directory", "reason", plan.reason, "root", p.root)
		p.recorder.Eventf(pv, corev1.EventTypeWarning, reasonVolumeFailedDelete, "refusing to delete: %s", plan.reason)
		return nil
	}
	return p.deleteVolume(klog.NewContext(ctx, logger), pv.Name)
}

// deleteVolume removes a released volume's directory, then the volume.
// Steps: re-read the volume from the API server, because the cache may lag
// behind an administrator who re-bound it; plan again on that copy; remove
// the directory; delete the volume, only if it is still the same object (by
// UID). A failure before the volume is gone is retried; the removal of an
// already removed directory succeeds.
func (p *Provisioner) deleteVolume(ctx context.Context, name string) error {
	live, err := p.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("getting volume %s: %w", name, err)
	}
	plan := planVolume(live, p.name, p.root)
	if plan.action != volumeDelete {
		return nil
	}
	if err := removeDir(p.root, plan.dir); err != nil {
		p.recorder.Eventf(live, corev1.EventTypeWarning, reasonVolumeFailedDelete, "%v", err)
		return fmt.Errorf("deleting volume %s: %w", name, err)
	}
	err = p.client.CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &live.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting volume %s: %w", name, err)
	}
	klog.FromContext(ctx).Info("Deleted released volume", "path", live.Spec.HostPath.Path)
	return nil
}
