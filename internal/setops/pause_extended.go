package setops

import (
	"context"
	"fmt"

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

// resume clears the pause field. A set that came from apps/v1 while
// paused there still holds the partition `pause` raised, with the
// partition to restore in v1alpha1.PausedAnnotation: that is restored too.
func (extendedDoor) resume(ctx context.Context, t *Target) (string, error) {
	ru := t.Extended.Spec.UpdateStrategy.RollingUpdate
	paused := ru != nil && ru.Paused
	saved, raised := t.Extended.Annotations[v1alpha1.PausedAnnotation]
	if !paused && !raised {
		return t.Ref() + " is not paused; nothing to resume", nil
	}
	fields := map[string]any{}
	if paused {
		fields["paused"] = nil
	}
	msg := fmt.Sprintf("%s resumed (%s cleared)", t.Ref(), pausedField)
	body := rollingUpdatePatch(t.Extended.ResourceVersion, fields)
	if raised {
		restore, err := t.savedRestore(saved)
		if err != nil {
			return "", err
		}
		fields["partition"] = restore
		body["metadata"].(map[string]any)["annotations"] = map[string]any{v1alpha1.PausedAnnotation: nil}
		msg = fmt.Sprintf("%s resumed; partition restored to %s", t.Ref(), saved)
	}
	if err := t.mergePatch(ctx, body); err != nil {
		return "", err
	}
	return msg, nil
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
