package setops

import (
	"bytes"
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/revision"
)

// RestartedAtAnnotation is kubectl's restart marker on the pod template.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// Undo rolls the pod template back to revision to (0: the previous one)
// exactly as kubectl rollout undo does: the revision's stored data is sent
// as a strategic merge patch. A template that already matches is left
// alone and says so.
func (t *Target) Undo(ctx context.Context, to int64) (string, error) {
	revs, err := t.Revisions(ctx)
	if err != nil {
		return "", err
	}
	target, err := UndoTarget(revs, to)
	if err != nil {
		return "", err
	}
	current, err := revision.Patch(t.Set)
	if err != nil {
		return "", err
	}
	if bytes.Equal(current, target.Data.Raw) {
		// kubectl prints the requested number, 0 included.
		return fmt.Sprintf("%s skipped rollback (current template already matches revision %d)", t.Ref(), to), nil
	}
	_, err = t.Client.AppsV1().StatefulSets(t.Set.Namespace).Patch(ctx, t.Set.Name, types.StrategicMergePatchType, target.Data.Raw, metav1.PatchOptions{})
	if err != nil {
		return "", fmt.Errorf("rolling back %s: %w", t.Ref(), err)
	}
	return t.Ref() + " rolled back", nil
}

// Restart stamps the pod template with kubectl's restartedAt annotation
// set to now: a new revision, so the rolling update replaces every pod
// under the set's strategy.
func (t *Target) Restart(ctx context.Context, now time.Time) (string, error) {
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, RestartedAtAnnotation, now.Format(time.RFC3339))
	_, err := t.Client.AppsV1().StatefulSets(t.Set.Namespace).Patch(ctx, t.Set.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return "", fmt.Errorf("restarting %s: %w", t.Ref(), err)
	}
	return t.Ref() + " restarted", nil
}
