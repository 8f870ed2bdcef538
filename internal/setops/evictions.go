package setops

import (
	"context"

	lifecyclev1alpha1 "k8s.io/api/lifecycle/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/internal/planner"
)

// setEvictions reads, for an extended set, the Evictions
// (lifecycle.k8s.io, KEP-4563) of its pods, so that `rollout plan` says
// which pod leaves because of an eviction request, as the controller
// plans it. A cluster that does not serve the API, or a user who may not
// list Evictions, gets none: the plan then knows of no request.
func setEvictions(ctx context.Context, t *Target) []*lifecyclev1alpha1.Eviction {
	if t.Extended == nil {
		return nil
	}
	list, err := t.Client.LifecycleV1alpha1().Evictions(t.Set.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []*lifecyclev1alpha1.Eviction
	for i := range list.Items {
		ev := &list.Items[i]
		if p := ev.Spec.Target.Pod; p != nil {
			if parent, _, ok := planner.SplitPodName(p.Name); ok && parent == t.Set.Name {
				out = append(out, ev)
			}
		}
	}
	return out
}
