package setops

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
)

// groupSets lists the extended sets of the namespace when the set is in
// a rollout group, so that its plan can say whose turn it waits for; nil
// for any other set.
func (t *Target) groupSets(ctx context.Context) ([]*v1alpha1.StatefulSet, error) {
	if t.Extended == nil || t.sets == nil || osts.RolloutGroup(t.Extended) == "" {
		return nil, nil
	}
	list, err := t.sets.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the sets of rollout group %s: %w", osts.RolloutGroup(t.Extended), err)
	}
	out := make([]*v1alpha1.StatefulSet, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
