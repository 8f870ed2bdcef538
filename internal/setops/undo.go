package setops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/revision"
)

// RestartedAtAnnotation is kubectl's restart marker on the pod template.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// Undo rolls the pod template back to revision to (0: the previous one)
// exactly as kubectl rollout undo does: the revision's stored data is sent
// as a strategic merge patch. A template that already matches is left
// alone and says so. An extended set takes the revision's template as a
// JSON patch instead (see extendedDoor.undo).
func (t *Target) Undo(ctx context.Context, to int64) (string, error) {
	revs, err := t.Revisions(ctx)
	if err != nil {
		return "", err
	}
	target, err := UndoTarget(revs, to)
	if err != nil {
		return "", err
	}
	current, err := revision.PatchWith(t.Set, RevisionOptions(t.Extended))
	if err != nil {
		return "", err
	}
	if bytes.Equal(current, target.Data.Raw) {
		// kubectl prints the requested number, 0 included.
		return fmt.Sprintf("%s skipped rollback (current template already matches revision %d)", t.Ref(), to), nil
	}
	if err := t.door().undo(ctx, t, target); err != nil {
		return "", fmt.Errorf("rolling back %s: %w", t.Ref(), err)
	}
	return t.Ref() + " rolled back", nil
}

// undo sends the revision's stored data as a strategic merge patch, as
// kubectl does.
func (appsV1Door) undo(ctx context.Context, t *Target, rev *appsv1.ControllerRevision) error {
	return appsV1Door{}.patch(ctx, t, types.StrategicMergePatchType, rev.Data.Raw)
}

// Restart stamps the pod template with kubectl's restartedAt annotation
// set to now: a new revision, so the rolling update replaces every pod
// under the set's strategy. The patch only adds to a map, so it is both
// a strategic merge patch (apps/v1, as kubectl sends it) and a JSON merge
// patch (the extended kind, which takes no strategic merge patch).
func (t *Target) Restart(ctx context.Context, now time.Time) (string, error) {
	patch := []byte(fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, RestartedAtAnnotation, now.Format(time.RFC3339)))
	d := t.door()
	if err := d.patch(ctx, t, d.mapPatchType(), patch); err != nil {
		return "", fmt.Errorf("restarting %s: %w", t.Ref(), err)
	}
	return t.Ref() + " restarted", nil
}

// undo puts rev's template in spec.template (and its claim templates in
// spec.volumeClaimTemplates, when it holds them, and its overrides in
// spec.overrides) with a JSON patch that
// first tests the generation just read, so a spec changed meanwhile
// fails the undo instead of being overwritten (a status the controller
// wrote meanwhile does not). The template is the revision applied to the
// set's view: defaulted, exactly as the revision stores it, so the
// controller finds the same revision.
func (extendedDoor) undo(ctx context.Context, t *Target, rev *appsv1.ControllerRevision) error {
	restored, err := revision.Apply(t.Set, rev)
	if err != nil {
		return fmt.Errorf("applying revision %d (%s): %w", rev.Revision, rev.Name, err)
	}
	ops := []map[string]any{
		{"op": "test", "path": "/metadata/generation", "value": t.Extended.Generation},
		{"op": "replace", "path": "/spec/template", "value": restored.Spec.Template},
	}
	if revision.HasClaims(rev) {
		// An InPlace set's revision holds its claim templates too; a size
		// smaller than the claims' is then refused, as any shrink is.
		ops = append(ops, map[string]any{"op": "add", "path": "/spec/volumeClaimTemplates", "value": restored.Spec.VolumeClaimTemplates})
	}
	// The revision's overrides come back with its template.
	overrides, err := osts.RestoreOverrides(t.Extended, rev)
	if err != nil {
		return fmt.Errorf("reading revision %d (%s): %w", rev.Revision, rev.Name, err)
	}
	patch, err := json.Marshal(append(ops, overrides...))
	if err != nil {
		return err
	}
	return extendedDoor{}.patch(ctx, t, types.JSONPatchType, patch)
}
