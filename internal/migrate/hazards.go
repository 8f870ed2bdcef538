package migrate

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Unsafe is a migration to apps/v1 that would, at once, move a pod, skip
// a hook or change storage: apps/v1's controller would act on the pods
// as soon as it adopts them. No --force overrides it; Reasons say what to
// change first. Overridable are the refusals --force would override.
type Unsafe struct {
	Ref         string
	Reasons     []string
	Overridable []string
}

// Error lists the reasons, one a line, then the refusals --force would
// have overridden.
func (u *Unsafe) Error() string {
	msg := fmt.Sprintf("not migrating %s, not even with --force:\n  - %s\nnothing was changed; change those first and migrate again",
		u.Ref, strings.Join(u.Reasons, "\n  - "))
	if len(u.Overridable) > 0 {
		msg += "\nalso refused, unless --force:\n  - " + strings.Join(u.Overridable, "\n  - ")
	}
	return msg
}

// hazards are what apps/v1's controller would do at once to the pods and
// claims of the extended set it adopts: roll out a template the failure
// policy holds, create the pods of reserved ordinals, start the pods of
// offline members, delete pods outside its ordinal range (with their
// claims under whenScaled Delete) without their hooks, disturb a pod whose
// hook has not finished or whose update in place is under way, or leave a
// claim half resized. claims are the
// namespace's claims by name.
func hazards(set *v1alpha1.StatefulSet, pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim) []string {
	start := ptr.Deref(set.Spec.Ordinals, v1alpha1.StatefulSetOrdinals{}).Start
	replicas := ptr.Deref(set.Spec.Replicas, 1)
	last := int64(start) + int64(replicas) - 1
	out := append(heldHazard(set), reservedInRange(set, start, last)...)
	out = append(out, offlineInRange(set, start, last)...)
	for _, pod := range pods {
		out = append(out, podHazards(set, pod, start, last)...)
	}
	return append(out, claimHazards(set, pods, claims)...)
}

// heldHazard names a hold of the failure policy: the set runs another
// revision than its spec's, or holds the spec's rollout paused, and
// apps/v1, which knows no hold, would roll the spec's template out at
// once. A hold whose release annotation names it is ending, and is no
// hazard.
func heldHazard(set *v1alpha1.StatefulSet) []string {
	h := set.Status.Hold
	if h == nil || set.Annotations[v1alpha1.ReleaseHoldAnnotation] == h.ID {
		return nil
	}
	runs := fmt.Sprintf("runs revision %s instead", h.Revision)
	if h.Action == v1alpha1.HoldPaused {
		runs = "holds its rollout paused"
	}
	return []string{fmt.Sprintf("the rollout of the spec's revision %s failed (%s) and the failure policy %s (status.hold %s): "+
		"apps/v1 would roll that template out at once; fix the template, or `ordinal rollout undo osts/%s`, and wait until the hold ends "+
		"(or release it with `ordinal rollout resume osts/%s` and let the rollout finish) first", h.FailedRevision, h.Reason, runs, h.ID, set.Name, set.Name)}
}

// reservedInRange names the reserved ordinals from start to last, where
// apps/v1 would create pods.
func reservedInRange(set *v1alpha1.StatefulSet, start int32, last int64) []string {
	var out []string
	for _, names := range inRange(set.Name, osts.Reserved(set), start, last) {
		out = append(out, fmt.Sprintf("spec.reserveOrdinals reserves %s, which apps/v1 would create (its pods are ordinals %d to %d): "+
			"remove those ordinals from spec.reserveOrdinals and let the extended controller move the pods first", names, start, last))
	}
	return out
}

// offlineInRange names the offline members from start to last, whose pods
// apps/v1 would start again at once: it has no offline members.
func offlineInRange(set *v1alpha1.StatefulSet, start int32, last int64) []string {
	var out []string
	for _, names := range inRange(set.Name, osts.Offline(set), start, last) {
		out = append(out, fmt.Sprintf("spec.offlineOrdinals takes %s offline, which apps/v1 would start again at once (its pods are ordinals %d to %d): "+
			"bring it back (remove it from spec.offlineOrdinals) and let the extended controller start it first, or scale the set below it", names, start, last))
	}
	return out
}

// inRange names, for each of ranges that meets start to last, the pods of
// set name it holds there ("web-1", "web-3 to web-4").
func inRange(name string, ranges []planner.OrdinalRange, start int32, last int64) []string {
	var out []string
	for _, r := range ranges {
		low, high := max(int64(r.Low), int64(start)), min(int64(r.High), last)
		if low > high {
			continue
		}
		names := planner.PodName(name, int32(low))
		if high > low {
			names += " to " + planner.PodName(name, int32(high))
		}
		out = append(out, names)
	}
	return out
}

// podHazards names what apps/v1 would do to pod at once.
func podHazards(set *v1alpha1.StatefulSet, pod *corev1.Pod, start int32, last int64) []string {
	var out []string
	if ord, ok := planner.ParseOrdinal(set.Name, pod.Name); ok && (ord < start || int64(ord) > last) {
		what := "delete it"
		if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil && p.WhenScaled == "Delete" && len(set.Spec.VolumeClaimTemplates) > 0 {
			what += " and, under whenScaled Delete, its claims"
		}
		out = append(out, fmt.Sprintf("pod %s is outside apps/v1's ordinals %d to %d: apps/v1 would %s without running any hook; "+
			"wait until the extended controller has removed it (or scale the set so that it is inside)", pod.Name, start, last, what))
	}
	for _, h := range []struct{ name, label string }{{"preUpdate", v1alpha1.PreUpdateHookLabel}, {"preDelete", v1alpha1.PreDeleteHookLabel},
		{"switchover", v1alpha1.SwitchoverHookLabel}, {"postCreate", v1alpha1.PostCreateHookLabel}, {"postUpdate", v1alpha1.PostUpdateHookLabel},
		{"reload", v1alpha1.ReloadHookLabel}} {
		switch v := pod.Labels[h.label]; v {
		case v1alpha1.HookPending, v1alpha1.HookFailed:
			out = append(out, fmt.Sprintf("pod %s's %s hook is %s (label %s): apps/v1 would not wait for it; "+
				"let it finish, or label the pod %s=%s, first", pod.Name, h.name, v, h.label, h.label, v1alpha1.HookDone))
		}
	}
	if inPlaceUnderWay(pod) {
		out = append(out, fmt.Sprintf("pod %s is out of service: its readiness gate %s is not True while an update in place or a postCreate/postUpdate hook is under way; "+
			"apps/v1 would never set it True, so the pod would stay out of its Services; wait until it has finished", pod.Name, v1alpha1.InPlaceReadinessGate))
	}
	return out
}

// inPlaceUnderWay says whether pod has the in-place readiness gate and its
// condition is not True.
func inPlaceUnderWay(pod *corev1.Pod) bool {
	gated := slices.ContainsFunc(pod.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool {
		return g.ConditionType == v1alpha1.InPlaceReadinessGate
	})
	if !gated {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == v1alpha1.InPlaceReadinessGate {
			return c.Status != corev1.ConditionTrue
		}
	}
	return true
}

// claimHazards names the claims of the set's pods whose resize or
// attributes change has not finished: apps/v1 never finishes it.
func claimHazards(set *v1alpha1.StatefulSet, pods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim) []string {
	var out []string
	for _, pod := range pods {
		ord, ok := planner.ParseOrdinal(set.Name, pod.Name)
		if !ok {
			continue
		}
		for _, t := range set.Spec.VolumeClaimTemplates {
			claim := claims[planner.ClaimName(t.Name, set.Name, ord)]
			if claim == nil {
				continue
			}
			if why := changing(claim); why != "" {
				out = append(out, fmt.Sprintf("claim %s is %s: wait until it has finished", claim.Name, why))
			}
		}
	}
	return out
}

// changeConditions are a claim's conditions while a resize or an
// attributes change is under way or has failed without being given up.
var changeConditions = []corev1.PersistentVolumeClaimConditionType{
	corev1.PersistentVolumeClaimResizing, corev1.PersistentVolumeClaimFileSystemResizePending,
	corev1.PersistentVolumeClaimControllerResizeError, corev1.PersistentVolumeClaimNodeResizeError,
	corev1.PersistentVolumeClaimVolumeModifyingVolume, corev1.PersistentVolumeClaimVolumeModifyVolumeError,
}

// changing says how claim is being changed, or "" when it is not: a
// resize the storage has not finished, or an attributes class not yet
// applied.
func changing(claim *corev1.PersistentVolumeClaim) string {
	if len(claim.Status.AllocatedResourceStatuses) > 0 {
		return "being resized (status.allocatedResourceStatuses is set)"
	}
	for _, c := range claim.Status.Conditions {
		if c.Status == corev1.ConditionTrue && slices.Contains(changeConditions, c.Type) {
			return fmt.Sprintf("being changed (condition %s)", c.Type)
		}
	}
	want, has := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if got, ok := claim.Status.Capacity[corev1.ResourceStorage]; has && ok && claim.Status.Phase == corev1.ClaimBound && got.Cmp(want) < 0 {
		return fmt.Sprintf("being resized (requests %s, capacity %s)", want.String(), got.String())
	}
	if claim.Status.ModifyVolumeStatus != nil {
		return fmt.Sprintf("changing its volume attributes class (to %s, %s)", claim.Status.ModifyVolumeStatus.TargetVolumeAttributesClassName, claim.Status.ModifyVolumeStatus.Status)
	}
	return ""
}
