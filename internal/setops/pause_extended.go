package setops

import (
	"context"
	"fmt"
	"strings"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// pausedField is the extended kind's pause, as messages name it.
const pausedField = "spec.updateStrategy.rollingUpdate.paused"

// pause sets the extended set's own pause field: the controller then
// updates no pod (a missing pod comes back at the current revision) and
// scaling still works. Unlike apps/v1's partition, nothing needs saving,
// so pausing twice is harmless.
func (extendedDoor) pause(ctx context.Context, t *Target) (string, error) {
	spec := t.Extended.Spec.UpdateStrategy
	switch spec.Type {
	case "", v1alpha1.RollingUpdateStatefulSetStrategyType:
	case v1alpha1.OnDeleteStatefulSetStrategyType:
		return "", fmt.Errorf("cannot pause %s: its update strategy is OnDelete, where pods change only when you delete them; pause works on RollingUpdate sets", t.Ref())
	default:
		return "", fmt.Errorf("cannot pause %s: its update strategy is %s, which replaces every pod at once; pause works on RollingUpdate sets", t.Ref(), spec.Type)
	}
	if spec.RollingUpdate != nil && spec.RollingUpdate.Paused {
		return fmt.Sprintf("%s already paused (%s)", t.Ref(), pausedField), nil
	}
	if err := t.mergePatch(ctx, rollingUpdatePatch(t.Extended.ResourceVersion, map[string]any{"paused": true})); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s paused (%s): no pod is updated until resume; scaling still works", t.Ref(), pausedField), nil
}

// resume clears the pause field and releases the failure policy's hold
// (status.hold) by naming it in v1alpha1.ReleaseHoldAnnotation, the one
// way to try a held revision again without changing the spec; the
// controller, not this command, then ends the hold in status. A set that
// came from apps/v1 while paused there still holds the partition `pause`
// raised, with the partition to restore in v1alpha1.PausedAnnotation:
// that is restored too.
func (extendedDoor) resume(ctx context.Context, t *Target) (string, error) {
	ru := t.Extended.Spec.UpdateStrategy.RollingUpdate
	paused := ru != nil && ru.Paused
	saved, raised := t.Extended.Annotations[v1alpha1.PausedAnnotation]
	hold := t.Extended.Status.Hold
	if hold != nil && t.Extended.Annotations[v1alpha1.ReleaseHoldAnnotation] == hold.ID && !paused && !raised {
		return fmt.Sprintf("%s: the hold %s is already released; the controller ends it at its next sync", t.Ref(), hold.ID), nil
	}
	if !paused && !raised && hold == nil {
		return t.Ref() + " is not paused; nothing to resume", nil
	}
	fields := map[string]any{}
	if paused {
		fields["paused"] = nil
	}
	var msgs []string
	if paused {
		msgs = append(msgs, fmt.Sprintf("%s resumed (%s cleared)", t.Ref(), pausedField))
	}
	annotations := map[string]any{}
	if raised {
		restore, err := t.savedRestore(saved)
		if err != nil {
			return "", err
		}
		fields["partition"] = restore
		annotations[v1alpha1.PausedAnnotation] = nil
		msgs = append(msgs, fmt.Sprintf("%s resumed; partition restored to %s", t.Ref(), saved))
	}
	if hold != nil {
		annotations[v1alpha1.ReleaseHoldAnnotation] = hold.ID
		msgs = append(msgs, fmt.Sprintf("%s: hold %s released (%s): revision %s rolls out again, and if it fails again the failure policy holds it again",
			t.Ref(), hold.ID, v1alpha1.ReleaseHoldAnnotation, hold.FailedRevision))
	}
	body := map[string]any{"metadata": map[string]any{"resourceVersion": t.Extended.ResourceVersion}}
	if len(fields) > 0 {
		body = rollingUpdatePatch(t.Extended.ResourceVersion, fields)
	}
	if len(annotations) > 0 {
		body["metadata"].(map[string]any)["annotations"] = annotations
	}
	if err := t.mergePatch(ctx, body); err != nil {
		return "", err
	}
	return strings.Join(msgs, "; "), nil
}

// HeldRevision is the revision whose failed rollout set's failure policy
// holds (status.hold), "" for none or an apps/v1 set (nil).
func HeldRevision(set *v1alpha1.StatefulSet) string {
	if set == nil || set.Status.Hold == nil {
		return ""
	}
	return set.Status.Hold.FailedRevision
}

// rollingUpdatePatch is a merge patch of spec.updateStrategy.rollingUpdate
// guarded by the resourceVersion just read, so a concurrent edit makes it
// fail (Conflict) instead of being overwritten. A nil value removes the
// field.
func rollingUpdatePatch(resourceVersion string, fields map[string]any) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"spec":     map[string]any{"updateStrategy": map[string]any{"rollingUpdate": fields}},
	}
}
