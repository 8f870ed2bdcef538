package setops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
)

// ErrNeedsExtended refuses to choose the pods of an apps/v1 set, which
// can only shrink from its highest ordinal and ignores
// v1alpha1.DeleteRequestedLabel.
var ErrNeedsExtended = errors.New("choosing which pods go needs the extended kind")

// PlanRemoval reads the set's pods and builds the Removal of ordinals.
func (t *Target) PlanRemoval(ctx context.Context, ordinals []int32) (Removal, Observed, error) {
	if err := t.door().choosable(t); err != nil {
		return Removal{}, Observed{}, err
	}
	obs, err := t.Observe(ctx)
	if err != nil {
		return Removal{}, Observed{}, err
	}
	r, err := NewRemoval(t.Extended, obs.Pods, ordinals)
	return r, obs, err
}

// PlanReplacement reads the set's pods and builds the Replacement of
// ordinals.
func (t *Target) PlanReplacement(ctx context.Context, ordinals []int32) (Replacement, Observed, error) {
	if err := t.door().choosable(t); err != nil {
		return Replacement{}, Observed{}, err
	}
	obs, err := t.Observe(ctx)
	if err != nil {
		return Replacement{}, Observed{}, err
	}
	r, err := NewReplacement(t.Extended, obs.Pods, ordinals)
	return r, obs, err
}

// Remove sends the removal's patch. When the set changed since it was
// read, the patch's test fails and nothing is changed.
func (t *Target) Remove(ctx context.Context, r Removal) error {
	if err := t.door().choosable(t); err != nil {
		return err
	}
	data, err := json.Marshal(r.Patch)
	if err != nil {
		return err
	}
	if err := t.door().patch(ctx, t, types.JSONPatchType, data); err != nil {
		if t.specChanged(ctx, t.Extended.Generation) {
			return fmt.Errorf("%s changed since it was read, so nothing was changed; run the command again", t.Ref())
		}
		return fmt.Errorf("updating %s: %w", t.Ref(), err)
	}
	return nil
}

// Replace labels the replacement's pods, one patch each. A pod that was
// replaced in between is not labelled, and the error says so and which
// pods were labelled before it.
func (t *Target) Replace(ctx context.Context, r Replacement) error {
	var labelled []string
	for _, pod := range r.Pods {
		if err := t.label(ctx, pod); err != nil {
			if len(labelled) > 0 {
				return fmt.Errorf("%w (%s already labelled)", err, strings.Join(labelled, ", "))
			}
			return err
		}
		labelled = append(labelled, pod.Name)
	}
	return nil
}

// label sends pod's LabelPatch.
func (t *Target) label(ctx context.Context, pod *corev1.Pod) error {
	data, err := json.Marshal(LabelPatch(pod))
	if err != nil {
		return err
	}
	if _, err := t.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.JSONPatchType, data, metav1.PatchOptions{}); err != nil {
		if t.podReplaced(ctx, pod) {
			return fmt.Errorf("%s was replaced since it was read, so it was not labelled; run the command again", pod.Name)
		}
		return fmt.Errorf("labelling %s: %w", pod.Name, err)
	}
	return nil
}

// specChanged says whether the set's generation is no longer gen. The
// API server answers a failed test operation with a bare 422 that does not
// say which operation failed, so a failed patch is explained by reading
// the set again.
func (t *Target) specChanged(ctx context.Context, gen int64) bool {
	set, err := t.sets.Get(ctx, t.Set.Name, metav1.GetOptions{})
	return err == nil && set.Generation != gen
}

// podReplaced says whether pod is gone or another pod has its name now.
func (t *Target) podReplaced(ctx context.Context, pod *corev1.Pod) bool {
	now, err := t.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	return apierrors.IsNotFound(err) || err == nil && now.UID != pod.UID
}

// Preview is obs as it will be once the removal's patch is applied: the
// planner run on it shows what the controller will do.
func (r Removal) Preview(obs Observed) (Observed, error) {
	set, err := applyPatch(obs.Extended, r.Patch)
	if err != nil {
		return Observed{}, err
	}
	obs.Extended, obs.Set = set, osts.View(set)
	return obs, nil
}

// Preview is obs with the replacement's pods labelled.
func (r Replacement) Preview(obs Observed) (Observed, error) {
	labelled := map[types.UID]bool{}
	for _, p := range r.Pods {
		labelled[p.UID] = true
	}
	pods := make([]*corev1.Pod, 0, len(obs.Pods))
	for _, p := range obs.Pods {
		if labelled[p.UID] {
			p = p.DeepCopy()
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[v1alpha1.DeleteRequestedLabel] = "true"
		}
		pods = append(pods, p)
	}
	obs.Pods = pods
	return obs, nil
}

// applyPatch applies ops to a copy of set, as the API server would.
func applyPatch(set *v1alpha1.StatefulSet, ops []PatchOp) (*v1alpha1.StatefulSet, error) {
	doc, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding the patch: %w", err)
	}
	if doc, err = patch.Apply(doc); err != nil {
		return nil, fmt.Errorf("applying the patch: %w", err)
	}
	out := &v1alpha1.StatefulSet{}
	if err := json.Unmarshal(doc, out); err != nil {
		return nil, err
	}
	return out, nil
}
