package planner

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Storage failure reasons, as status.blockedBy lists them.
const (
	ReasonResizePending       = "ResizePending"
	ReasonResizeFailed        = "ResizeFailed"
	ReasonResizeInfeasible    = "ResizeInfeasible"
	ReasonModifyFailed        = "ModifyFailed"
	ReasonModifyInfeasible    = "ModifyInfeasible"
	ReasonExpansionNotAllowed = "ExpansionNotAllowed"
	// ReasonShrinkRefused is the Warning about a template smaller than
	// the claim it describes.
	ReasonShrinkRefused = "ClaimShrinkRefused"
)

// claimCheck is one claim of a pod compared with its template at the
// update revision.
type claimCheck struct {
	name  string
	claim *corev1.PersistentVolumeClaim
	tmpl  *corev1.PersistentVolumeClaim
	// patch holds only the fields to write (see UpdateClaimStorage); nil
	// when the claim already has them.
	patch *corev1.PersistentVolumeClaim
	// grow is set when the patch asks for more than the claim's capacity.
	grow bool
	// shrink is set when the template asks for less than the capacity.
	shrink bool
	// progress is what the claim is still doing, in words; empty when its
	// resize and modification have finished.
	progress string
	// failure classifies a resize or modification that went wrong; nil
	// when none did.
	failure *PodFailure
}

// done reports whether the claim needs nothing more: nothing to write and
// nothing in progress or failed.
func (c claimCheck) done() bool {
	return c.patch == nil && c.progress == "" && c.failure == nil
}

// checkClaim compares a claim with its template at revision rev. The
// claim is to request max(template, capacity) storage (KEP-1790 lets a
// request come down to that after a failed resize), the template's
// volumeAttributesClassName and its labels and annotations, plus the
// claim-revision label. A claim that is not bound yet has no capacity to
// grow from and gets only its metadata.
func checkClaim(name string, claim, tmpl *corev1.PersistentVolumeClaim, rev string) claimCheck {
	c := claimCheck{name: name, claim: claim, tmpl: tmpl}
	patch := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{
		Name: claim.Name, Namespace: claim.Namespace, ResourceVersion: claim.ResourceVersion,
	}}
	changed := c.metadata(patch, rev)
	if capacity, bound := storageOf(claim.Status.Capacity); bound {
		changed = c.size(patch, capacity, rev) || changed
		changed = c.attributesClass(patch) || changed
	}
	if changed {
		c.patch = patch
	}
	c.progress, c.failure = claimProgress(claim)
	return c
}

// metadata adds to patch the template's labels and annotations the claim
// lacks, and the claim-revision label; other keys are never removed.
func (c *claimCheck) metadata(patch *corev1.PersistentVolumeClaim, rev string) bool {
	labels := missing(c.claim.Labels, c.tmpl.Labels)
	if c.claim.Labels[v1alpha1.ClaimRevisionLabel] != rev {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[v1alpha1.ClaimRevisionLabel] = rev
	}
	patch.Labels, patch.Annotations = labels, missing(c.claim.Annotations, c.tmpl.Annotations)
	return labels != nil || patch.Annotations != nil
}

// size sets the request to max(template, capacity) when the claim asks
// for less than the template, or, after the template changed, for more
// than that (a resize the storage could not do, which KEP-1790 lets the
// request come down from). A template below the capacity is a shrink,
// which is never applied.
func (c *claimCheck) size(patch *corev1.PersistentVolumeClaim, capacity resource.Quantity, rev string) bool {
	want, _ := storageOf(c.tmpl.Spec.Resources.Requests)
	request, _ := storageOf(c.claim.Spec.Resources.Requests)
	c.shrink = want.Cmp(capacity) < 0
	target := want
	if c.shrink {
		target = capacity
	}
	lower := request.Cmp(target) > 0 && c.claim.Labels[v1alpha1.ClaimRevisionLabel] != rev
	if request.Cmp(want) >= 0 && !lower {
		return false
	}
	c.grow = target.Cmp(capacity) > 0
	patch.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: target}
	return true
}

// attributesClass sets the template's volumeAttributesClassName when it
// names one the claim does not ask for. A template without one leaves the
// claim's as it is: a class, once set, cannot be removed from a claim.
func (c *claimCheck) attributesClass(patch *corev1.PersistentVolumeClaim) bool {
	want := c.tmpl.Spec.VolumeAttributesClassName
	if want == nil || (c.claim.Spec.VolumeAttributesClassName != nil && *c.claim.Spec.VolumeAttributesClassName == *want) {
		return false
	}
	patch.Spec.VolumeAttributesClassName = want
	return true
}

// claimProgress reads a claim's status as the external resizer, the
// kubelet and the attributes modifier write it (KEP-1790, KEP-3751): what
// is still under way, and what failed. Infeasible resizes and
// modifications are permanent; an error condition is retried by the
// resizer and fails the rollout only at the progress deadline.
func claimProgress(claim *corev1.PersistentVolumeClaim) (string, *PodFailure) {
	if f := resizeFailure(claim); f != nil {
		return "", f
	}
	if f := modifyFailure(claim); f != nil {
		return "", f
	}
	if s := resizeProgress(claim); s != "" {
		return s, nil
	}
	return modifyProgress(claim), nil
}

func resizeFailure(claim *corev1.PersistentVolumeClaim) *PodFailure {
	switch s := claim.Status.AllocatedResourceStatuses[corev1.ResourceStorage]; s {
	case corev1.PersistentVolumeClaimControllerResizeInfeasible, corev1.PersistentVolumeClaimNodeResizeInfeasible:
		return claimFailure(claim, ReasonResizeInfeasible, true, fmt.Sprintf("the storage cannot resize claim %s to %s (%s)%s",
			claim.Name, quantityOf(claim.Spec.Resources.Requests), s, conditionMessage(claim, corev1.PersistentVolumeClaimControllerResizeError, corev1.PersistentVolumeClaimNodeResizeError)))
	}
	for _, t := range []corev1.PersistentVolumeClaimConditionType{corev1.PersistentVolumeClaimControllerResizeError, corev1.PersistentVolumeClaimNodeResizeError} {
		if c := claimCondition(claim, t); c != nil {
			return claimFailure(claim, ReasonResizeFailed, false, fmt.Sprintf("resizing claim %s to %s failed (%s): %s", claim.Name, quantityOf(claim.Spec.Resources.Requests), t, c.Message))
		}
	}
	return nil
}

func modifyFailure(claim *corev1.PersistentVolumeClaim) *PodFailure {
	if m := claim.Status.ModifyVolumeStatus; m != nil && m.Status == corev1.PersistentVolumeClaimModifyVolumeInfeasible {
		return claimFailure(claim, ReasonModifyInfeasible, true, fmt.Sprintf("the storage cannot apply volumeAttributesClass %s to claim %s%s",
			m.TargetVolumeAttributesClassName, claim.Name, conditionMessage(claim, corev1.PersistentVolumeClaimVolumeModifyVolumeError)))
	}
	if c := claimCondition(claim, corev1.PersistentVolumeClaimVolumeModifyVolumeError); c != nil {
		return claimFailure(claim, ReasonModifyFailed, false, fmt.Sprintf("modifying claim %s failed: %s", claim.Name, c.Message))
	}
	return nil
}

func resizeProgress(claim *corev1.PersistentVolumeClaim) string {
	request, _ := storageOf(claim.Spec.Resources.Requests)
	capacity, bound := storageOf(claim.Status.Capacity)
	switch s := claim.Status.AllocatedResourceStatuses[corev1.ResourceStorage]; {
	case s != "":
		return fmt.Sprintf("claim %s resizing to %s (%s)", claim.Name, quantityOf(claim.Spec.Resources.Requests), s)
	case claimCondition(claim, corev1.PersistentVolumeClaimResizing) != nil:
		return fmt.Sprintf("claim %s resizing to %s", claim.Name, quantityOf(claim.Spec.Resources.Requests))
	case claimCondition(claim, corev1.PersistentVolumeClaimFileSystemResizePending) != nil:
		return fmt.Sprintf("claim %s waits for its file system to grow on the node", claim.Name)
	case bound && capacity.Cmp(request) < 0:
		return fmt.Sprintf("claim %s has %s of the %s it requests", claim.Name, capacity.String(), request.String())
	}
	return ""
}

func modifyProgress(claim *corev1.PersistentVolumeClaim) string {
	want := claim.Spec.VolumeAttributesClassName
	current := claim.Status.CurrentVolumeAttributesClassName
	switch {
	case claim.Status.ModifyVolumeStatus != nil:
		return fmt.Sprintf("claim %s moving to volumeAttributesClass %s (%s)", claim.Name,
			claim.Status.ModifyVolumeStatus.TargetVolumeAttributesClassName, claim.Status.ModifyVolumeStatus.Status)
	case claimCondition(claim, corev1.PersistentVolumeClaimVolumeModifyingVolume) != nil:
		return fmt.Sprintf("claim %s moving to volumeAttributesClass %s", claim.Name, deref(want))
	case want != nil && claim.Status.Phase == corev1.ClaimBound && deref(current) != *want:
		return fmt.Sprintf("claim %s has volumeAttributesClass %q, not yet %s", claim.Name, deref(current), *want)
	}
	return ""
}

// claimFailure is a storage failure of the pod the claim belongs to; the
// caller fills in the pod. Since is when the claim's last condition
// changed, when it has one.
func claimFailure(claim *corev1.PersistentVolumeClaim, reason string, permanent bool, msg string) *PodFailure {
	f := &PodFailure{Reason: reason, Permanent: permanent, Message: msg}
	for _, c := range claim.Status.Conditions {
		if t := c.LastTransitionTime.Time; f.Since.IsZero() || t.After(f.Since) {
			f.Since = t
		}
	}
	return f
}

func claimCondition(claim *corev1.PersistentVolumeClaim, t corev1.PersistentVolumeClaimConditionType) *corev1.PersistentVolumeClaimCondition {
	for i := range claim.Status.Conditions {
		if c := &claim.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

func conditionMessage(claim *corev1.PersistentVolumeClaim, types ...corev1.PersistentVolumeClaimConditionType) string {
	for _, t := range types {
		if c := claimCondition(claim, t); c != nil && c.Message != "" {
			return ": " + c.Message
		}
	}
	return ""
}

// claimMatches is status.volumeClaims' test: the claim has at least the
// template's size (more counts, as a smaller template is refused), the
// template's volumeAttributesClassName, and nothing in progress or failed.
func claimMatches(claim, tmpl *corev1.PersistentVolumeClaim) bool {
	if claim == nil {
		return false
	}
	want, _ := storageOf(tmpl.Spec.Resources.Requests)
	size, bound := storageOf(claim.Status.Capacity)
	if !bound {
		size, _ = storageOf(claim.Spec.Resources.Requests)
	}
	if size.Cmp(want) < 0 {
		return false
	}
	if v := tmpl.Spec.VolumeAttributesClassName; v != nil && (deref(claim.Spec.VolumeAttributesClassName) != *v ||
		(bound && deref(claim.Status.CurrentVolumeAttributesClassName) != *v)) {
		return false
	}
	progress, failure := claimProgress(claim)
	return progress == "" && failure == nil
}

// storageOf returns the storage quantity of a resource list, and whether
// it has one.
func storageOf(list corev1.ResourceList) (resource.Quantity, bool) {
	q, ok := list[corev1.ResourceStorage]
	return q, ok
}

func quantityOf(list corev1.ResourceList) string {
	q, _ := storageOf(list)
	return q.String()
}

// missing returns the entries of want that have is lacks or holds with
// another value; nil when there are none.
func missing(have, want map[string]string) map[string]string {
	var out map[string]string
	for k, v := range want {
		if cur, ok := have[k]; !ok || cur != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sinceOrLast is t, or last when t is unknown.
func sinceOrLast(t, last time.Time) time.Time {
	if t.IsZero() {
		return last
	}
	return t
}

// ClaimProgress says in words where a claim stands against its template,
// as the InPlace claim update judges it, and whether it matches (see
// status.volumeClaims): "missing", a failure, the work under way, or its
// size and class when it matches or waits for its turn.
func ClaimProgress(claim, tmpl *corev1.PersistentVolumeClaim) (string, bool) {
	if claim == nil {
		return "missing", false
	}
	progress, failure := claimProgress(claim)
	switch {
	case failure != nil:
		return failure.Reason + ": " + failure.Message, false
	case progress != "":
		return progress, false
	}
	size, bound := storageOf(claim.Status.Capacity)
	if !bound {
		return "not bound yet", claimMatches(claim, tmpl)
	}
	state := size.String()
	if v := claim.Status.CurrentVolumeAttributesClassName; v != nil {
		state += ", volumeAttributesClass " + *v
	}
	if !claimMatches(claim, tmpl) {
		state += fmt.Sprintf("; template asks %s", quantityOf(tmpl.Spec.Resources.Requests))
		if v := tmpl.Spec.VolumeAttributesClassName; v != nil {
			state += ", volumeAttributesClass " + *v
		}
	}
	return state, claimMatches(claim, tmpl)
}
